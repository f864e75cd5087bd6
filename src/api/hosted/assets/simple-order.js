// Reloads the page when the order's status changes, from GET /api/transaction.
(function () {
  var root = document.getElementById('simple-checkout');
  if (!root) return;
  var code = root.getAttribute('data-transaction-code');
  var shown = root.getAttribute('data-status');
  if (shown !== 'pending' && shown !== 'processing') return;
  function poll() {
    fetch('/api/transaction?transaction_code=' + encodeURIComponent(code), { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        var status = body && body.data && body.data.status;
        if (status && status !== shown) { window.location.reload(); return; }
        setTimeout(poll, 2000);
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();
