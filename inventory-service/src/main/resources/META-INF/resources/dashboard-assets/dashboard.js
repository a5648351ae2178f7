// The dashboard's client, plain browser APIs only (fetch, streams, sessionStorage); no framework.
// The viewer token lives in sessionStorage: this tab only, gone when it closes. It is sent as
// "Authorization: Bearer" on every data request and on the live stream (read with fetch, because
// EventSource cannot send headers), so it never appears in a URL, a history entry or an access log.
(() => {
  'use strict';
  const KEY = 'rediacc.dashboard.viewer-token';
  const LOGIN = '/dashboard/login';
  const view = document.body.dataset.view;

  class LoggedOut extends Error {}

  function toLogin(reason) {
    sessionStorage.removeItem(KEY);
    const next = location.pathname + location.search;
    location.replace(LOGIN + '?next=' + encodeURIComponent(next) + (reason ? '&reason=' + reason : ''));
  }

  async function authorized(url, token, accept) {
    const res = await fetch(url, {
      headers: { 'Authorization': 'Bearer ' + token, 'Accept': accept },
      cache: 'no-store', credentials: 'omit', redirect: 'error'
    });
    if (res.status === 401 || res.status === 403) {
      throw new LoggedOut(res.status === 403 ? 'forbidden' : 'unauthorized');
    }
    return res;
  }

  // --- login page -------------------------------------------------------------------------------
  function loginPage() {
    const form = document.getElementById('login-form');
    const error = document.getElementById('login-error');
    const params = new URLSearchParams(location.search);
    if (params.get('reason') === 'forbidden') {
      error.textContent = 'That token may not read the fleet (it needs the viewer or operator role).';
    } else if (params.get('reason') === 'unauthorized') {
      error.textContent = 'The token was refused; log in again.';
    }
    document.getElementById('token').focus();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const token = form.token.value.trim();
      error.textContent = '';
      try {
        const res = await authorized('/api/v1/dashboard/whoami', token, 'application/json');
        if (!res.ok) {
          error.textContent = 'The service answered ' + res.status + '; try again.';
          return;
        }
        sessionStorage.setItem(KEY, token);
        form.token.value = '';
        location.replace(safeNext(params.get('next')));
      } catch (e) {
        form.token.value = '';
        error.textContent = e instanceof LoggedOut
            ? (e.message === 'forbidden' ? 'That token may not read the fleet (it needs the viewer role).'
                                         : 'That token was refused. Check it and try again.')
            : 'The service cannot be reached: ' + e.message;
        form.token.focus();
      }
    });
  }

  // only the dashboard's own pages: a crafted ?next= must not send the browser elsewhere
  function safeNext(next) {
    return next && /^\/dashboard(\/[A-Za-z0-9._\/-]*)?(\?[^#]*)?$/.test(next) && !next.startsWith(LOGIN) ? next : '/dashboard';
  }

  // --- data pages -------------------------------------------------------------------------------
  function dataPage(token) {
    const target = document.getElementById('view');
    const status = document.getElementById('live-status');
    const updated = document.getElementById('updated');
    const machine = target.dataset.machine || null;
    const form = document.getElementById('filters');

    document.getElementById('logout').addEventListener('click', () => {
      sessionStorage.removeItem(KEY);
      location.replace(LOGIN);
    });

    function query() {
      if (!form) {
        return '';
      }
      const params = new URLSearchParams(new FormData(form));
      for (const [k, v] of [...params]) {
        if (!v || (k === 'show' && v === 'all') || (k === 'page' && v === '0')) {
          params.delete(k);
        }
      }
      const q = params.toString();
      return q ? '?' + q : '';
    }

    if (form) {
      // the filters come from the address, so a filtered view can be bookmarked and reloaded
      const params = new URLSearchParams(location.search);
      for (const el of form.elements) {
        if (!el.name || !params.has(el.name)) continue;
        if (el.type === 'radio') el.checked = el.value === params.get(el.name);
        else el.value = params.get(el.name);
      }
      const apply = (event) => {
        if (event) event.preventDefault();
        history.replaceState(null, '', location.pathname + query());
        refresh();
      };
      form.addEventListener('submit', (event) => { form.page.value = '0'; apply(event); });
      form.addEventListener('change', () => { form.page.value = '0'; apply(); });
      target.addEventListener('click', (event) => {
        const pager = event.target.closest('button[data-page]');
        if (pager) {
          form.page.value = pager.dataset.page;
          apply();
          target.focus();
        }
      });
    }

    let loading = null;
    let again = false;
    async function refresh() {
      if (loading) { again = true; return loading; }
      loading = (async () => {
        do {
          again = false;
          const res = await authorized(target.dataset.fragment + query(), token, 'text/html');
          const body = await res.text();
          // keep keyboard focus on the same link across a refresh
          const focused = target.contains(document.activeElement) ? document.activeElement.getAttribute('href') : null;
          if (res.ok) {
            target.innerHTML = body;
          } else {
            target.replaceChildren(errorBox(res.status, body));
          }
          if (focused) {
            const same = [...target.querySelectorAll('a[href]')].find(a => a.getAttribute('href') === focused);
            if (same) same.focus();
          }
          target.setAttribute('aria-busy', 'false');
          updated.textContent = 'Updated ' + new Date().toLocaleTimeString();
        } while (again);
      })().catch(failed).finally(() => { loading = null; });
      return loading;
    }

    function errorBox(status, body) {
      const p = document.createElement('p');
      p.className = 'error';
      p.setAttribute('role', 'alert');
      let text = 'The service answered ' + status + '.';
      try {
        const e = JSON.parse(body);
        text = (e.detail || e.error || text) + (e.hint ? ' ' + e.hint : '');
      } catch (ignored) { /* not JSON: keep the status */ }
      p.textContent = text;
      return p;
    }

    function failed(e) {
      if (e instanceof LoggedOut) {
        toLogin(e.message);
      } else {
        updated.textContent = 'Could not update: ' + e.message;
      }
    }

    function setLive(on) {
      status.dataset.live = on ? 'on' : 'off';
      status.textContent = on ? 'Live' : 'Reconnecting…';
    }

    // A change on another machine does not touch a machine's page; the fleet and repo pages show all.
    let pending = null;
    function changed(event) {
      if (machine && event.data !== machine) return;
      clearTimeout(pending);
      pending = setTimeout(refresh, 50); // a transaction's several notifications, one refresh
    }

    async function listen() {
      for (;;) {
        try {
          const res = await authorized('/api/v1/dashboard/events', token, 'text/event-stream');
          if (!res.ok) throw new Error('live stream answered ' + res.status);
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value.replace(/\r\n?/g, '\n');
            let end;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const event = parseEvent(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
              if (event.name === 'ready') {
                setLive(true);
                refresh(); // whatever changed while the stream was down
              } else if (event.name !== 'ping') {
                changed(event);
              }
            }
          }
        } catch (e) {
          if (e instanceof LoggedOut) { toLogin(e.message); return; }
        }
        setLive(false);
        await new Promise(resolve => setTimeout(resolve, 2000));
      }
    }

    function parseEvent(block) {
      const event = { name: 'message', data: '' };
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon === 0) continue; // a comment
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.name = value;
        else if (field === 'data') event.data = event.data ? event.data + '\n' + value : value;
      }
      return event;
    }

    refresh();
    listen();
    // ages and staleness move with time, not with events
    setInterval(refresh, 30000);
  }

  if (view === 'login') {
    loginPage();
  } else {
    const token = sessionStorage.getItem(KEY);
    if (!token) {
      toLogin();
    } else {
      dataPage(token);
    }
  }
})();
