// Refreshes the page when the session's status changes, from the public lookup. The page is complete
// without this script; it only saves the customer a reload while the provider confirms.
(function () {
  var root = document.getElementById('checkout');
  if (!root) return;
  var id = root.getAttribute('data-session-id');
  var shown = root.getAttribute('data-status');
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
