#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fails when a public symbol of libgamegate-1 is undocumented.

Reads the GIR that g-ir-scanner made from plugin-api/ and reports every
type, function, method, callback, constant, signal and property without a
doc comment or without a `Since:` line; every parameter and return value
without its description; every enum value without its `@VALUE:` line and
every public struct field without its `@field:` line. With the version
script, it also reports exported functions the GIR does not know (a doc
comment the scanner could not attach).

Usage: check-api-docs.py GIR [libgamegate.map]
"""
import re
import sys
import xml.etree.ElementTree as ET

CORE = '{http://www.gtk.org/introspection/core/1.0}'
C = '{http://www.gtk.org/introspection/c/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'

CALLABLES = ('function', 'method', 'constructor', 'callback', GLIB + 'signal')
VERSIONED = CALLABLES + ('class', 'interface', 'record', 'enumeration', 'bitfield',
                         'constant', 'alias', 'union', 'property')


def tag(el):
    return el.tag.replace(CORE, '')


def name_of(el, parent):
    ident = el.get(C + 'identifier') or el.get(C + 'type')
    if ident:
        return ident
    own = el.get('name') or '?'
    return f'{parent}:{own}' if tag(el) == 'property' else f'{parent}::{own}' if parent else own


def has_doc(el):
    doc = el.find(CORE + 'doc')
    return doc is not None and (doc.text or '').strip() != ''


def check_callable(el, name, problems):
    params = el.find(CORE + 'parameters')
    if params is not None:
        for p in params.findall(CORE + 'parameter'):
            pname = p.get('name')
            if not has_doc(p):
                problems.append(f'{name}: parameter @{pname} has no description')
    ret = el.find(CORE + 'return-value')
    if ret is not None:
        rtype = ret.find(CORE + 'type')
        if (rtype is None or rtype.get('name') != 'none') and not has_doc(ret):
            problems.append(f'{name}: the return value has no "Returns:" description')


def walk(el, parent, problems, seen):
    t = tag(el)
    if t == 'record' and el.get(GLIB + 'is-gtype-struct-for'):
        return  # the class/iface struct G_DECLARE_* writes
    if t in VERSIONED or t == GLIB + 'signal':
        name = name_of(el, parent)
        seen.add(el.get(C + 'identifier') or '')
        if not has_doc(el):
            problems.append(f'{name}: no doc comment')
        elif el.get('version') is None:
            problems.append(f'{name}: no "Since:" line')
        if t in CALLABLES:
            check_callable(el, name, problems)
        if t in ('enumeration', 'bitfield'):
            for m in el.findall(CORE + 'member'):
                if not has_doc(m):
                    problems.append(f'{name}: value {m.get(C + "identifier")} has no @VALUE: line')
        if t in ('record', 'class', 'union'):
            for f in el.findall(CORE + 'field'):
                if f.get('private') == '1' or t == 'class':
                    continue
                if not has_doc(f):
                    problems.append(f'{name}: field {f.get("name")} has no @field: line')
        for child in el:
            if tag(child) in VERSIONED or child.tag == GLIB + 'signal':
                walk(child, name, problems, seen)


def exported_functions(map_path):
    with open(map_path, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'global:(.*?)local:', text, re.S)
    body = m.group(1) if m else text
    return set(re.findall(r'\b(gg_\w+)\s*;', body))


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = ET.parse(argv[1]).getroot()
    problems, seen = [], set()
    for ns in root.findall(CORE + 'namespace'):
        for el in ns:
            walk(el, '', problems, seen)
    if len(argv) == 3:
        for sym in sorted(exported_functions(argv[2]) - seen):
            if sym.endswith('_get_type'):
                continue  # GType functions come with their type
            problems.append(f'{sym}: exported but not in the GIR (no doc comment the scanner saw)')
    for p in problems:
        print(p, file=sys.stderr)
    print(f'{len(problems)} undocumented')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
