/*
 * Sales Agent website chat widget (docs/widget.md).
 *   <script src="https://YOUR-SALES-AGENT/widget.js" data-conversation-type="12" async></script>
 * Adds a launcher button that opens the chat (an iframe of /embed/{type}) in a panel; full screen on phones.
 * Plain ES5-safe script with no dependencies, so it runs on any site; it touches nothing outside its own nodes.
 */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || window.__salesAgentWidget) return;
  window.__salesAgentWidget = true;

  var typeId = script.getAttribute('data-conversation-type');
  var label = script.getAttribute('data-label') || 'Chat with us';
  var color = script.getAttribute('data-color') || '#3b5bdb';
  var origin = new URL(script.src, location.href).origin;
  if (!typeId) {
    console.error('Sales Agent widget: add data-conversation-type="{id}" to the script tag.');
    return;
  }

  var PREFIX = 'sales-agent-widget';
  // The conversation uuid, kept in the host site's storage too: browsers that block storage in third-party
  // frames would otherwise start a new conversation on every page load (see embed.tsx tellHost).
  var conversationKey = PREFIX + ':' + origin + ':' + typeId;
  function readConversation() {
    try {
      return localStorage.getItem(conversationKey);
    } catch (e) {
      return null;
    }
  }
  function keepConversation(uuid) {
    try {
      if (uuid) localStorage.setItem(conversationKey, uuid);
      else localStorage.removeItem(conversationKey);
    } catch (e) {
      /* storage blocked: the frame's own storage may still resume it */
    }
  }
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (event.origin !== origin || !data || data.source !== PREFIX) return;
    if (String(data.typeId) !== String(typeId)) return;
    // Escape pressed inside the chat (its keys never reach this page): close, focus back on the launcher.
    if (data.type === 'close') {
      if (panel.getAttribute('data-open') === 'true') setOpen(false);
      return;
    }
    if (data.type !== 'conversation') return;
    keepConversation(typeof data.uuid === 'string' ? data.uuid : null);
  });
  var css =
    '.' + PREFIX + '-launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;display:flex;align-items:center;gap:8px;' +
    'padding:12px 18px;border:0;border-radius:999px;background:' + color + ';color:#fff;font:600 15px/1.2 system-ui,sans-serif;' +
    'box-shadow:0 4px 16px rgba(0,0,0,.25);cursor:pointer}' +
    '.' + PREFIX + '-launcher:focus-visible{outline:3px solid #fff;outline-offset:2px;box-shadow:0 0 0 6px ' + color + '}' +
    '.' + PREFIX + '-panel{position:fixed;right:20px;bottom:84px;z-index:2147483001;width:380px;height:min(640px,calc(100vh - 110px));' +
    'display:none;flex-direction:column;background:#fff;border-radius:12px;overflow:hidden;box-shadow:0 8px 32px rgba(0,0,0,.3)}' +
    '.' + PREFIX + '-panel[data-open="true"]{display:flex}' +
    '.' + PREFIX + '-bar{display:flex;align-items:center;justify-content:space-between;padding:8px 8px 8px 16px;background:' + color + ';color:#fff;font:600 15px/1.2 system-ui,sans-serif}' +
    '.' + PREFIX + '-close{border:0;background:transparent;color:#fff;font-size:24px;line-height:1;width:40px;height:40px;cursor:pointer;border-radius:8px}' +
    '.' + PREFIX + '-close:focus-visible{outline:2px solid #fff}' +
    '.' + PREFIX + '-frame{flex:1;width:100%;border:0}' +
    '@media (max-width:480px){.' + PREFIX + '-panel{inset:0;width:100%;height:100%;border-radius:0}}';

  var style = document.createElement('style');
  style.textContent = css;
  document.head.appendChild(style);

  var launcher = document.createElement('button');
  launcher.type = 'button';
  launcher.className = PREFIX + '-launcher';
  launcher.setAttribute('aria-expanded', 'false');
  launcher.setAttribute('aria-controls', PREFIX + '-panel');
  launcher.innerHTML =
    '<svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">' +
    '<path d="M3 20l1.3-3.9A9 8 0 1 1 7.7 19L3 20"/></svg>';
  launcher.appendChild(document.createTextNode(label));

  var panel = document.createElement('div');
  panel.id = PREFIX + '-panel';
  panel.className = PREFIX + '-panel';
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', label);
  var bar = document.createElement('div');
  bar.className = PREFIX + '-bar';
  bar.appendChild(document.createTextNode(label));
  var close = document.createElement('button');
  close.type = 'button';
  close.className = PREFIX + '-close';
  close.setAttribute('aria-label', 'Close chat');
  close.textContent = '\u00d7';
  bar.appendChild(close);
  panel.appendChild(bar);

  var frame = null;
  function setOpen(open, moveFocus) {
    if (open && !frame) {
      // Created on first open, so a page that never opens the chat loads nothing more than this script.
      frame = document.createElement('iframe');
      frame.className = PREFIX + '-frame';
      frame.title = label;
      var resume = readConversation();
      frame.src = origin + '/embed/' + encodeURIComponent(typeId) + (resume ? '?resume=' + encodeURIComponent(resume) : '');
      frame.allow = 'clipboard-write';
      panel.appendChild(frame);
    }
    panel.setAttribute('data-open', open ? 'true' : 'false');
    launcher.setAttribute('aria-expanded', open ? 'true' : 'false');
    launcher.style.display = open && window.matchMedia('(max-width:480px)').matches ? 'none' : '';
    try {
      sessionStorage.setItem(PREFIX + ':open', open ? '1' : '0');
    } catch (e) {
      /* storage blocked: the panel just starts closed on the next page */
    }
    if (moveFocus === false) return;
    if (open) close.focus();
    else launcher.focus();
  }
  launcher.addEventListener('click', function () {
    setOpen(panel.getAttribute('data-open') !== 'true');
  });
  close.addEventListener('click', function () {
    setOpen(false);
  });
  panel.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') setOpen(false);
  });

  function mount() {
    document.body.appendChild(panel);
    document.body.appendChild(launcher);
    var reopen = false;
    try {
      reopen = sessionStorage.getItem(PREFIX + ':open') === '1';
    } catch (e) {
      /* see above */
    }
    // Keep the panel open across the host site's page loads, without stealing focus on load.
    if (reopen) setOpen(true, false);
  }
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);
})();
