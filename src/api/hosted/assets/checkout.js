// The page is complete without this script (it reloads itself through <noscript> meta refresh).
// With it: the status is polled from the public lookup instead, the countdown ticks, copy buttons
// work, and a completed payment goes back to the merchant's success URL after a few seconds.
(function () {
  var root = document.getElementById('checkout');
  if (!root) return;
  var id = root.getAttribute('data-session-id');
  var shown = root.getAttribute('data-status');

  var redirect = root.getAttribute('data-redirect-url');
  if (redirect) {
    setTimeout(function () { window.location.assign(redirect); }, Number(root.getAttribute('data-redirect-after') || '3') * 1000);
  }

  var clock = document.getElementById('countdown');
  if (clock) {
    var expiresAt = Date.parse(clock.getAttribute('datetime'));
    var pad = function (n) { return (n < 10 ? '0' : '') + n; };
    var tick = function () {
      var left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      clock.textContent = h > 0 ? h + ':' + pad(m) + ':' + pad(s) : m + ':' + pad(s);
      if (left === 0) { setTimeout(function () { window.location.reload(); }, 2000); return; }
      setTimeout(tick, 1000);
    };
    tick();
  }

  Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
    var field = document.getElementById(button.getAttribute('data-copy'));
    if (!field) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      var done = function () {
        button.textContent = button.getAttribute('data-copied');
        setTimeout(function () { button.textContent = label; }, 2000);
      };
      field.select();
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, function () { if (document.execCommand('copy')) done(); });
      } else if (document.execCommand('copy')) {
        done();
      }
    });
  });

  if (shown !== 'pending' && shown !== 'processing') return;
  function poll() {
    fetch('/api/v1/checkout/sessions/' + encodeURIComponent(id), { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        if (body && body.status && body.status !== shown) { window.location.reload(); return; }
        setTimeout(poll, 2000);
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();
