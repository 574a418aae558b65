#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Finds borrowed values that the code frees or keeps: `(transfer none)`.

A getter documented `Returns: (transfer none)` (or an `(out) (transfer
none)` parameter) lends its caller a pointer that its owner keeps and frees.
Putting it in a g_autoptr()/g_autofree variable, passing it to an
unref/free function, or returning it from a function documented `(transfer
full)` frees it twice: a use-after-free that only shows when the owner next
reads it (the A2G service once freed the bus's default model that way).
Storing it in a heap structure (`p->field = getter (...)`) keeps it past
the call, which is right only while the owner outlives that structure.

The borrowed functions are read from the gtk-doc comments of every C file
of the tree (plugin-api/ first of all) and, when the GObject-introspection
files of GLib, GIO, json-glib and libsoup are installed, from their getters
(--gir-dir). Every public function of plugin-api that returns a pointer must
say its transfer, so that the list is complete. Each function body of
gateway/, plugins/, plugin-api/ and tests/ is then read for:

  auto-free    g_autoptr(T) x = getter (...), g_autofree ... = getter (...)
               (casts allowed), or x = getter (...) for such an x in scope
  freed        unref/free/destroy (getter (...)), or g_clear_*(&x) and
               unref/free (x) for an x only ever set from getters (and
               neither referenced nor stolen from its owner in that function)
  returned     return getter (...), or such an x, from a (transfer full)
               function
  kept         p->field = getter (...), or such an x

A line may carry a `/* borrowed: <why> */` comment to say that a match is
right (the owner outlives the structure, say); it is then not reported.

Usage: check-borrowed.py [--gir-dir DIR] [--list] SOURCE_ROOT
       check-borrowed.py --self-test
  --list       also print every borrowed function and parameter found
  --self-test  runs the checks on known right and wrong code
"""
import argparse
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

SCANNED_DIRS = ('gateway', 'plugins', 'plugin-api', 'tests')
SKIPPED_DIRS = {os.path.join('tests', 'fuzz', 'corpus'), os.path.join('tests', 'tools')}
GIR_FILES = ('GLib-2.0.gir', 'GObject-2.0.gir', 'Gio-2.0.gir', 'Json-1.0.gir', 'Soup-3.0.gir')
GIR_NS = '{http://www.gtk.org/introspection/core/1.0}'
GIR_C_NS = '{http://www.gtk.org/introspection/c/1.0}'

# GObject-introspection calls every unannotated result (transfer none),
# g_malloc()'s and g_queue_pop_head()'s too: only its getters lend. Those
# that return their argument with a reference taken (g_object_ref() and
# its kin) hand one over.
GIR_GETTER = re.compile(r'_(get|peek|lookup)(_\w+)?$|_nth_data$')
NOT_BORROWED = re.compile(r'(_ref|_ref_sink|_take_ref)$')

DOC_BLOCK = re.compile(r'/\*\*[ \t]*\n\s*\*\s*([A-Za-z_]\w*)\s*:\s*(?:\([^)\n]*\)\s*)*\n(.*?)\*/', re.S)
DOC_RETURNS = re.compile(r'^\s*\*\s*Returns:\s*((?:\([^)]*\)\s*)*)', re.M)
DOC_PARAM = re.compile(r'^\s*\*\s*@(\w+):\s*((?:\([^)]*\)\s*)*)', re.M)
TRANSFER = re.compile(r'\(transfer (none|full|container|floating)\)')
FREE_CALL = r'(?:\w+_(?:unref|free|destroy|free_full)|g_free|g_strfreev|g_clear_object|g_clear_pointer)'
CAST = r'(?:\(\s*(?:const\s+)?\w+\s*\**\s*\)\s*|[A-Z][A-Z0-9_]*\s*\(\s*)*'
AUTO = r'(?:\bg_auto(?:ptr|list|slist|queue)?\s*\(\s*\w+\s*\)|\bg_autofree\s+(?:const\s+)?\w+)'
AUTO_DECL = re.compile(AUTO + r'\s*\**\s*(\w+)\s*=\s*' + CAST + r'(\w+)\s*\(')
AUTO_VARS = re.compile(AUTO + r'\s*\**\s*(\w+)\s*[=;]')
ASSIGN = re.compile(r'(?<![\w.>*])(\w+)\s*=(?!=)\s*' + CAST + r'(\w+)\s*\(')
ANY_ASSIGN = re.compile(r'(?<![\w.>])(\w+)\s*=(?!=)\s*([^;]*);')
DIRECT_FREE = re.compile(r'\b(' + FREE_CALL + r')\s*\(\s*' + CAST + r'(\w+)\s*\(')
RETURN_CALL = re.compile(r'\breturn\s+' + CAST + r'(\w+)\s*\(')
FIELD_STORE = re.compile(r'->\s*(\w+)\s*=(?!=)\s*' + CAST + r'(\w+)\s*(\(|;)')
FUNCTION_HEAD = re.compile(r'\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*$', re.S)
POINTER_DECL = re.compile(r'^\s*(?:const\s+)?[A-Za-z_]\w*\s*\*+\s*(gg_\w+)\s*\(', re.M)
KEYWORDS = {'if', 'while', 'for', 'switch', 'return', 'sizeof', 'else', 'do', 'case', 'goto'}
MARKER = 'BORROWED_OK'


class Lenders:
    """What lends: {function: where}, {function: {argument index: name}}
    of (out) (transfer none) parameters, and the (transfer full) functions."""

    def __init__(self):
        self.results = {}
        self.outs = {}
        self.full = set()
        self.from_gir = 0


def annotations(text):
    return TRANSFER.findall(text)


def strip_code(text):
    """Blanks comments, strings, character literals and preprocessor lines,
    keeping line breaks; a `/* borrowed: */` comment becomes MARKER."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            chunk = text[i:end]
            out.append(' ' + MARKER + ' ' if re.match(r'/\*\s*borrowed:', chunk) else ' ')
            out.append('\n' * chunk.count('\n'))
            i = end
        elif text.startswith('//', i):
            end = text.find('\n', i)
            i = n if end < 0 else end
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c + '\n' * text[i:j].count('\n'))
            i = j + 1
        elif c == '#' and text[text.rfind('\n', 0, i) + 1:i].strip() == '':
            end = i
            while True:  # the directive, with its continuation lines
                end = text.find('\n', end)
                if end < 0 or text[end - 1] != '\\':
                    break
                end += 1
            end = n if end < 0 else end
            out.append('\n' * text[i:end].count('\n'))
            i = end
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def source_files(root):
    for top in SCANNED_DIRS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(dirpath, root)
            dirnames[:] = sorted(d for d in dirnames
                                 if os.path.join(rel, d) not in SKIPPED_DIRS
                                 and not d.startswith('.') and d != 'node_modules')
            for name in sorted(files):
                if name.endswith(('.c', '.h')):
                    yield os.path.join(dirpath, name)


def read_docs(root, lenders):
    docs = {}
    for path in source_files(root):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for m in DOC_BLOCK.finditer(text):
            name, body = m.group(1), m.group(2)
            r = DOC_RETURNS.search(body)
            transfer = annotations(r.group(1)) if r else []
            docs[name] = transfer
            if 'none' in transfer:
                lenders.results.setdefault(name, os.path.relpath(path, root))
            elif 'full' in transfer:
                lenders.full.add(name)
            for index, p in enumerate(DOC_PARAM.finditer(body)):
                if '(out' in p.group(2) and 'none' in annotations(p.group(2)):
                    lenders.outs.setdefault(name, {})[index] = p.group(1)
    return docs


def undocumented_transfers(root, docs):
    """Public plugin-api functions returning a pointer without a transfer."""
    missing = []
    api = os.path.join(root, 'plugin-api')
    for name in sorted(os.listdir(api)):
        if not name.endswith('.h') or name.endswith('-private.h'):
            continue
        with open(os.path.join(api, name), encoding='utf-8') as f:
            code = strip_code(f.read())
        for m in POINTER_DECL.finditer(code):
            if not docs.get(m.group(1)):
                missing.append(f'plugin-api/{name}: {m.group(1)}() returns a pointer; its '
                               f'Returns: says no (transfer full) or (transfer none)')
    return missing


def read_girs(gir_dir, lenders):
    for name in GIR_FILES:
        path = os.path.join(gir_dir, name)
        if not os.path.exists(path):
            continue
        for element in ET.parse(path).getroot().iter():
            if element.tag not in (GIR_NS + 'function', GIR_NS + 'method'):
                continue
            symbol = element.get(GIR_C_NS + 'identifier')
            ret = element.find(GIR_NS + 'return-value')
            if symbol is None or ret is None or ret.get('transfer-ownership') != 'none':
                continue
            if not GIR_GETTER.search(symbol) or NOT_BORROWED.search(symbol):
                continue
            rtype = ret.find(GIR_NS + 'type')
            if rtype is None:
                rtype = ret.find(GIR_NS + 'array')
            ctype = rtype.get(GIR_C_NS + 'type', '') if rtype is not None else ''
            if '*' not in ctype and ctype not in ('gpointer', 'gconstpointer'):
                continue  # not a pointer: nothing to free
            if symbol not in lenders.results:
                lenders.results[symbol] = name
                lenders.from_gir += 1


def functions(code):
    """Yields (name or None, start offset, body) of each top-level braced
    block: function bodies, and the initializers of tables."""
    depth, start, last_end = 0, 0, 0
    for i, c in enumerate(code):
        if c == '{':
            if depth == 0:
                start = i
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                m = FUNCTION_HEAD.search(code[last_end:start])
                name = m.group(1) if m and m.group(1) not in KEYWORDS else None
                yield name, start, code[start:i + 1]
                last_end = i + 1
        elif c == ';' and depth == 0:
            last_end = i + 1


def call_arguments(body, open_paren):
    """The top-level arguments of the call whose `(` is at @open_paren."""
    args, depth, begin = [], 0, open_paren + 1
    for i in range(open_paren, len(body)):
        c = body[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(body[begin:i].strip())
                return args
        elif c == ',' and depth == 1:
            args.append(body[begin:i].strip())
            begin = i + 1
    return args


def block_start(body, pos):
    """The offset of the `{` of the innermost block holding @pos."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        if body[i] == '}':
            depth += 1
        elif body[i] == '{':
            if depth == 0:
                return i
            depth -= 1
    return 0


def declaration_kind(body, var, pos):
    """'auto' if the declaration of @var in scope at @pos frees what it
    holds, 'plain' for another, None for none seen (a parameter). The
    declaration's own initializer is not an assignment after it."""
    decl = re.compile(r'(' + AUTO + r'|\b[A-Za-z_]\w*)\s*\**\s*\b' + re.escape(var) + r'\s*(?=[=;,\[)])')
    kind = None
    for m in decl.finditer(body, 0, pos):
        if m.group(1) in KEYWORDS:
            continue
        if body[m.end():pos].strip() in ('', '='):
            continue
        start = block_start(body, m.start())
        if body.count('{', start, pos) - body.count('}', start, pos) >= 1:
            kind = 'auto' if m.group(1).startswith('g_auto') else 'plain'
    return kind


def check_body(path, code, name, start, body, lenders, problems):
    borrowed = lenders.results

    def report(offset, what):
        line_start = code.rfind('\n', 0, start + offset) + 1
        line_end = code.find('\n', start + offset)
        if MARKER in code[line_start:line_end]:
            return
        line = code.count('\n', 0, start + offset) + 1
        problems.append(f'{path}:{line}: {what}')

    def lent(fn):
        return f'{fn}() lends its result (transfer none, {borrowed[fn]})'

    # auto-free
    for m in AUTO_DECL.finditer(body):
        if m.group(2) in borrowed:
            report(m.start(), f'{m.group(1)} frees what it holds, but {lent(m.group(2))}')
    auto_vars = set(AUTO_VARS.findall(body))
    for m in ASSIGN.finditer(body):
        var, fn = m.group(1), m.group(2)
        if fn in borrowed and var in auto_vars and declaration_kind(body, var, m.start()) == 'auto':
            report(m.start(), f'{var} frees what it holds, but is set from {fn}(), which lends it '
                              f'(transfer none, {borrowed[fn]})')
    # freed, returned, kept: directly
    for m in DIRECT_FREE.finditer(body):
        if m.group(2) in borrowed:
            report(m.start(), f'{m.group(1)}() of {m.group(2)}(), but {lent(m.group(2))}')
    if name in lenders.full:
        for m in RETURN_CALL.finditer(body):
            if m.group(1) in borrowed:
                report(m.start(), f'{name}() gives a reference (transfer full), but returns '
                                  f'{m.group(1)}(), which lends it (transfer none, {borrowed[m.group(1)]})')
    for m in FIELD_STORE.finditer(body):
        if m.group(3) == '(' and m.group(2) in borrowed:
            report(m.start(), f'->{m.group(1)} keeps what {m.group(2)}() lends (transfer none, '
                              f'{borrowed[m.group(2)]}): say why it outlives the owner, '
                              f'or take a reference or a copy')

    # ... and through a variable set only from lenders.
    sources = {}
    for m in ANY_ASSIGN.finditer(body):
        var, value = m.group(1), m.group(2).strip()
        call = re.match(CAST + r'(\w+)\s*\(', value)
        if value in ('NULL', '0'):
            kind = 'null'
        elif call and call.group(1) in borrowed:
            kind = call.group(1)
        else:
            kind = 'owned'
        sources.setdefault(var, []).append(kind)
    for fn, params in lenders.outs.items():
        for m in re.finditer(r'\b' + re.escape(fn) + r'\s*\(', body):
            args = call_arguments(body, m.end() - 1)
            for index in params:
                out = re.fullmatch(r'&\s*(\w+)', args[index]) if index < len(args) else None
                if out:
                    sources.setdefault(out.group(1), []).append(fn)
    for var, kinds in sources.items():
        fns = sorted({k for k in kinds if k not in ('null', 'owned')})
        if 'owned' in kinds or not fns or var in auto_vars:
            continue
        # A reference of its own taken, or the owner's given up (stolen).
        if re.search(r'\w+_ref\w*\s*\(\s*' + CAST + re.escape(var) + r'\b', body) or \
           re.search(r'\w*steal\w*\s*\(', body):
            continue
        where = ', '.join(fns)
        for m in re.finditer(r'\b(' + FREE_CALL + r')\s*\(\s*(?:&\s*)?' + CAST + re.escape(var) + r'\s*[,)]', body):
            report(m.start(), f'{m.group(1)}() of {var}, which holds only what {where} lend(s) (transfer none)')
        if name in lenders.full:
            for m in re.finditer(r'\breturn\s+' + re.escape(var) + r'\s*;', body):
                report(m.start(), f'{name}() gives a reference (transfer full), but returns {var}, '
                                  f'which holds only what {where} lend(s) (transfer none)')
        for m in FIELD_STORE.finditer(body):
            if m.group(3) == ';' and m.group(2) == var:
                report(m.start(), f'->{m.group(1)} keeps {var}, which holds only what {where} lend(s) '
                                  f'(transfer none): say why it outlives the owner, or take a '
                                  f'reference or a copy')


def check_tree(root, gir_dir):
    lenders = Lenders()
    docs = read_docs(root, lenders)
    if gir_dir:
        read_girs(gir_dir, lenders)
    problems = undocumented_transfers(root, docs)
    for path in source_files(root):
        if not path.endswith('.c'):
            continue
        with open(path, encoding='utf-8') as f:
            code = strip_code(f.read())
        rel = os.path.relpath(path, root)
        for name, start, body in functions(code):
            check_body(rel, code, name, start, body, lenders, problems)
    return lenders, problems


SELF_TEST_API = '''
/**
 * gg_thing_get_node:
 * @self: a thing
 *
 * Returns: (transfer none): its node
 */
JsonNode *gg_thing_get_node (GgThing *self) { return self->node; }

/**
 * gg_thing_dup_node:
 *
 * Returns: (transfer full): a copy of its node
 */
JsonNode *gg_thing_dup_node (GgThing *self) { return json_node_copy (self->node); }

/**
 * gg_thing_peek:
 * @self: a thing
 * @name: (out) (transfer none): its name
 *
 * Returns: whether it has one
 */
gboolean gg_thing_peek (GgThing *self, const char **name) { *name = self->name; return TRUE; }
'''

SELF_TEST_HEADER = '''
JsonNode *gg_thing_get_node (GgThing *self);
JsonNode *gg_thing_dup_node (GgThing *self);
char     *gg_thing_undocumented (GgThing *self);
'''

SELF_TEST_CALLERS = '''
static void wrong_auto (GgThing *t) { g_autoptr(JsonNode) node = gg_thing_get_node (t); }
static void wrong_later (GgThing *t)
{
  g_autoptr(JsonNode) node = NULL;
  if (t != NULL)
    node = gg_thing_get_node (t);
}
static void wrong_cast (GgThing *t) { g_autofree char *s = (char *) gg_thing_get_node (t); }
static void wrong_free (GgThing *t) { json_node_unref (gg_thing_get_node (t)); }
static void wrong_var (GgThing *t)
{
  JsonNode *node = gg_thing_get_node (t);
  use (node);
  g_clear_pointer (&node, json_node_unref);
}
static void wrong_out (GgThing *t)
{
  const char *name = NULL;
  if (gg_thing_peek (t, &name))
    g_free ((char *) name);
}
/**
 * wrong_return:
 *
 * Returns: (transfer full): a node
 */
static JsonNode *wrong_return (GgThing *t) { return gg_thing_get_node (t); }
static void wrong_keep (Holder *h, GgThing *t) { h->node = gg_thing_get_node (t); }
static void wrong_json (JsonObject *o) { g_autoptr(JsonNode) m = json_object_get_member (o, "a"); }

static void right_plain (GgThing *t) { JsonNode *node = gg_thing_get_node (t); use (node); }
static void right_copy (GgThing *t) { g_autoptr(JsonNode) node = json_node_copy (gg_thing_get_node (t)); }
static void right_full (GgThing *t) { g_autoptr(JsonNode) node = gg_thing_dup_node (t); }
static void right_ref (GgThing *t)
{
  JsonNode *node = gg_thing_get_node (t);
  json_node_ref (node);
  json_node_unref (node);
}
static void right_scope (GgThing *t)
{
  {
    g_autofree char *text = g_strdup ("x");
  }
  {
    JsonNode *text;
    text = gg_thing_get_node (t);
  }
}
static void right_keep (Holder *h, GgThing *t) { h->node = gg_thing_get_node (t); /* borrowed: t outlives h */ }
static void right_string (void) { g_autofree char *s = g_strdup ("gg_thing_get_node (t)"); }
'''

SELF_TEST_EXPECTED = [
    ('plugin-api/gg-thing.h', 'gg_thing_undocumented() returns a pointer'),
    ('plugins/x/x.c:2:', 'node frees what it holds, but gg_thing_get_node() lends'),
    ('plugins/x/x.c:7:', 'node frees what it holds, but is set from gg_thing_get_node()'),
    ('plugins/x/x.c:9:', 's frees what it holds, but gg_thing_get_node() lends'),
    ('plugins/x/x.c:10:', 'json_node_unref() of gg_thing_get_node()'),
    ('plugins/x/x.c:15:', 'g_clear_pointer() of node'),
    ('plugins/x/x.c:21:', 'g_free() of name'),
    ('plugins/x/x.c:28:', 'wrong_return() gives a reference (transfer full), but returns gg_thing_get_node()'),
    ('plugins/x/x.c:29:', '->node keeps what gg_thing_get_node() lends'),
]
SELF_TEST_GIR_EXPECTED = ('plugins/x/x.c:30:', 'm frees what it holds, but json_object_get_member() lends')


def self_test(gir_dir):
    with tempfile.TemporaryDirectory() as root:
        for rel, text in (('plugin-api/gg-thing.c', SELF_TEST_API), ('plugin-api/gg-thing.h', SELF_TEST_HEADER),
                          ('plugins/x/x.c', SELF_TEST_CALLERS)):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w', encoding='utf-8') as f:
                f.write(text)
        lenders, problems = check_tree(root, gir_dir)
        expected = list(SELF_TEST_EXPECTED)
        if 'json_object_get_member' in lenders.results:
            expected.append(SELF_TEST_GIR_EXPECTED)
        else:
            print('self-test: no json-glib GIR, its getters are not tried')
        unmatched = list(problems)
        failed = False
        for where, what in expected:
            hit = next((p for p in unmatched if p.startswith(where) and what in p), None)
            if hit is None:
                print(f'self-test: not found: {where} {what}')
                failed = True
            else:
                unmatched.remove(hit)
        for p in unmatched:
            print(f'self-test: reported, but right: {p}')
            failed = True
        print(f'self-test: {len(expected)} wrong uses expected, {len(problems)} reported')
        return 1 if failed else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--gir-dir', default='/usr/share/gir-1.0')
    parser.add_argument('--list', action='store_true')
    parser.add_argument('--self-test', action='store_true')
    parser.add_argument('root', nargs='?')
    args = parser.parse_args(argv[1:])
    gir_dir = args.gir_dir if os.path.isdir(args.gir_dir) else None

    if args.self_test:
        return self_test(gir_dir)
    if args.root is None:
        parser.error('SOURCE_ROOT is required')
    lenders, problems = check_tree(args.root, gir_dir)
    ours = {fn: where for fn, where in lenders.results.items() if not where.endswith('.gir')}
    if args.list:
        for fn in sorted(ours):
            print(f'lends: {fn}() ({ours[fn]})')
        for fn, params in sorted(lenders.outs.items()):
            for param in params.values():
                print(f'lends: {fn}() @{param}')
    print(f'{len(ours)} (transfer none) results and {sum(len(p) for p in lenders.outs.values())} '
          f'(out) (transfer none) parameters documented in the tree; {lenders.from_gir} getters '
          f'from the GIR files in {gir_dir or "(none installed)"}')
    if not any(fn.startswith('gg_') for fn in ours):
        print('no (transfer none) function of plugin-api found: is SOURCE_ROOT right?', file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
