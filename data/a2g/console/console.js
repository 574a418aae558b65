/* console.js: the A2G console's behaviour. Listens to the service's
 * server-sent events (GET /v1/console/events): `snapshot` (every second:
 * sessions, decisions and their rates by source, cache, fallbacks, tokens,
 * budgets) and `decision` (one per decided entity). Everything that comes
 * from an event is put in the page with textContent, never as markup.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
(function () {
  'use strict';

  var SOURCES = ['model', 'cache', 'memory', 'forced'];
  var FALLBACK_CODES = ['busy', 'budget', 'timeout', 'unavailable', 'invalid', 'low_confidence', 'error'];
  var MAX_ROWS = 50;

  function byId(id) {
    return document.getElementById(id);
  }

  function setText(id, text) {
    var element = byId(id);
    if (element !== null) {
      element.textContent = text;
    }
  }

  function isNumber(value) {
    return typeof value === 'number' && isFinite(value);
  }

  function count(value) {
    return isNumber(value) ? Math.round(value).toLocaleString('en-US') : '–';
  }

  function rate(value) {
    if (!isNumber(value)) {
      return '–';
    }
    return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
  }

  function percent(value) {
    return isNumber(value) ? (Math.max(0, Math.min(1, value)) * 100).toFixed(1) + '%' : '–';
  }

  function latency(ms) {
    if (ms < 1) {
      return ms.toFixed(2);
    }
    return ms.toFixed(ms < 10 ? 1 : 0);
  }

  function member(object, name) {
    return object !== null && typeof object === 'object' && name in object ? object[name] : undefined;
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  /* --- connection state ------------------------------------------------ */

  function setStatus(state, label) {
    var status = byId('status');
    status.className = 'status status-' + state;
    status.setAttribute('data-state', state);
    status.textContent = label;
  }

  /* --- snapshots ------------------------------------------------------- */

  function renderSources(snapshot) {
    var decisions = member(snapshot, 'decisions');
    var rates = member(snapshot, 'decisions_per_second');
    var total = 0;
    var totalRate = 0;
    var highest = 0;
    SOURCES.forEach(function (source) {
      var r = member(rates, source);
      if (isNumber(r) && r > highest) {
        highest = r;
      }
    });
    SOURCES.forEach(function (source) {
      var n = member(decisions, source);
      var r = member(rates, source);
      setText('count-' + source, count(n));
      setText('dps-' + source, rate(r));
      byId('dps-bar-' + source).style.width = (highest > 0 && isNumber(r) ? (r / highest) * 100 : 0) + '%';
      total += isNumber(n) ? n : 0;
      totalRate += isNumber(r) ? r : 0;
    });
    setText('decisions-total', count(total));
    setText('dps-total', rate(totalRate));
  }

  function renderFallbacks(snapshot) {
    var fallbacks = member(snapshot, 'fallbacks');
    var total = 0;
    FALLBACK_CODES.forEach(function (code) {
      var n = member(fallbacks, code);
      var cell = byId('fallback-' + code);
      cell.textContent = count(n);
      cell.parentNode.classList.toggle('nonzero', isNumber(n) && n > 0);
      total += isNumber(n) ? n : 0;
    });
    setText('fallbacks-total', count(total));
  }

  function renderBudgets(snapshot) {
    var budgets = member(snapshot, 'budgets');
    var list = byId('budgets');
    var items = [];
    if (Array.isArray(budgets)) {
      budgets.forEach(function (budget) {
        var scope = member(budget, 'scope');
        var used = member(budget, 'used');
        var limit = member(budget, 'limit');
        var windowName = member(budget, 'window');
        var share = isNumber(used) && isNumber(limit) && limit > 0 ? Math.min(1, used / limit) : 0;
        var item = element('li');
        var head = element('div', 'budget-head');
        var fill = element('div', 'meter-fill fill-budget');
        var meter = element('div', 'meter');

        item.setAttribute('data-scope', typeof scope === 'string' ? scope : '');
        head.appendChild(element('span', 'budget-scope', typeof scope === 'string' ? scope : '?'));
        head.appendChild(element('span', 'budget-figures',
          count(used) + ' / ' + count(limit) + (typeof windowName === 'string' ? ' per ' + windowName : '')));
        /* A sliver at least once anything is used, so that it shows. */
        fill.style.width = (isNumber(used) && used > 0 ? Math.max(share * 100, 0.6) : 0).toFixed(1) + '%';
        fill.classList.toggle('high', share >= 0.75 && share < 1);
        fill.classList.toggle('full', share >= 1);
        meter.appendChild(fill);
        item.appendChild(head);
        item.appendChild(meter);
        items.push(item);
      });
    }
    list.replaceChildren.apply(list, items);
    byId('budgets-empty').hidden = items.length > 0;
  }

  function onSnapshot(event) {
    var snapshot;
    try {
      snapshot = JSON.parse(event.data);
    } catch (e) {
      return;
    }
    var cache = member(snapshot, 'cache');
    var tokens = member(snapshot, 'tokens');
    var input = member(tokens, 'input');
    var output = member(tokens, 'output');
    var profile = member(snapshot, 'profile');

    setStatus('live', 'live');
    setText('profile', typeof profile === 'string' ? profile : '–');
    setText('updated', new Date().toLocaleTimeString('en-GB'));
    setText('sessions', count(member(snapshot, 'sessions')));
    renderSources(snapshot);
    setText('cache-hit-rate', percent(member(cache, 'hit_rate')));
    setText('cache-hits', count(member(cache, 'hits')));
    setText('cache-misses', count(member(cache, 'misses')));
    renderFallbacks(snapshot);
    setText('tokens-input', count(input));
    setText('tokens-output', count(output));
    setText('tokens-total', count((isNumber(input) ? input : 0) + (isNumber(output) ? output : 0)));
    renderBudgets(snapshot);
    setText('dropped', count(member(snapshot, 'dropped_decisions')));
  }

  /* --- decisions ------------------------------------------------------- */

  function text(value) {
    return typeof value === 'string' ? value : '';
  }

  function onDecision(event) {
    var decision;
    try {
      decision = JSON.parse(event.data);
    } catch (e) {
      return;
    }
    if (decision === null || typeof decision !== 'object') {
      return;
    }
    var body = byId('decisions-body');
    var row = element('tr', 'fresh');
    var fallback = decision.action === 'FALLBACK';
    var time = text(decision.time);
    var entityCell = element('td', 'entity', text(decision.entity));
    var sourceCell = element('td', 'source');
    var reasonCell;

    if (fallback) {
      row.classList.add('fallback');
    }
    row.setAttribute('data-entity', text(decision.entity));
    /* "2026-12-01T10:00:00.123Z" shows as 10:00:00.123 (the service's UTC). */
    row.appendChild(element('td', 'time', time.length >= 23 ? time.substring(11, 23) : time));
    row.appendChild(element('td', 'session', text(decision.session)));
    if (text(decision.type) !== '') {
      entityCell.appendChild(element('span', 'entity-type', decision.type));
    }
    row.appendChild(entityCell);
    row.appendChild(element('td', 'action', text(decision.action)));
    if (fallback) {
      sourceCell.appendChild(element('span', 'badge badge-fallback', text(decision.code) || 'fallback'));
    } else if (SOURCES.indexOf(decision.source) >= 0) {
      sourceCell.appendChild(element('span', 'badge badge-' + decision.source, decision.source));
    } else {
      sourceCell.textContent = text(decision.source);
    }
    row.appendChild(sourceCell);
    row.appendChild(element('td', 'num confidence', isNumber(decision.confidence) ? String(decision.confidence) : ''));
    reasonCell = element('td', 'reason', fallback ? text(decision.message) : text(decision.reason));
    reasonCell.setAttribute('title', reasonCell.textContent);
    row.appendChild(reasonCell);
    row.appendChild(element('td', 'num latency',
      isNumber(decision.latency_ms) ? latency(decision.latency_ms) : ''));

    body.insertBefore(row, body.firstChild);
    while (body.rows.length > MAX_ROWS) {
      body.deleteRow(body.rows.length - 1);
    }
    byId('decisions-empty').hidden = true;
    setText('decisions-shown', String(body.rows.length));
  }

  /* --- the stream ------------------------------------------------------ */

  function connect() {
    if (typeof EventSource === 'undefined') {
      setStatus('down', 'no EventSource in this browser');
      return;
    }
    var source = new EventSource('/v1/console/events');
    source.addEventListener('open', function () {
      setStatus('live', 'live');
    });
    source.addEventListener('error', function () {
      /* EventSource reconnects by itself while readyState is CONNECTING. */
      if (source.readyState === EventSource.CLOSED) {
        setStatus('down', 'disconnected');
      } else {
        setStatus('connecting', 'reconnecting');
      }
    });
    source.addEventListener('snapshot', onSnapshot);
    source.addEventListener('decision', onDecision);
  }

  document.addEventListener('DOMContentLoaded', connect);
}());
