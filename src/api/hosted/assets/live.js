// Live status for every customer page, the pages being complete without it (their
// <noscript> meta refresh reloads them). The element with data-events names the page's stream of
// server-sent events; data-live, when present, holds the fields the page was drawn with, and the page
// is read again (a GET: every page is one) when one of them changes. A page with more to do in place
// (checkout.js counts confirmations) follows its stream with window.svcLive.follow itself.
(function () {
  var reloading = false;
  function reload() {
    if (reloading) return;
    reloading = true;
    window.location.replace(window.location.href);
  }
  /** Calls onStatus with each status event's data; false when the browser has no EventSource. */
  function follow(url, onStatus) {
    if (!window.EventSource) return false;
    var source = new window.EventSource(url);
    source.addEventListener('status', function (e) {
      var status;
      try {
        status = JSON.parse(e.data);
      } catch {
        return; // a malformed event changes nothing
      }
      onStatus(status);
    });
    // EventSource reconnects by itself (the server's retry: 2 s); a page left for the back-forward cache closes it.
    window.addEventListener('pagehide', function () {
      source.close();
    });
    window.addEventListener('pageshow', function (e) {
      if (e.persisted) reload();
    });
    return true;
  }
  window.svcLive = { follow: follow, reload: reload };
  // A form sent (Pay, Cancel and return) is how the page is left: the status change its action causes
  // reaches the stream before the answer does, and a reload then would drop the answer's redirect.
  window.addEventListener('submit', function (e) {
    if (!e.defaultPrevented) reloading = true;
  });

  var root = document.querySelector('[data-events][data-live]');
  if (!root) return;
  var drawn = JSON.parse(root.getAttribute('data-live'));
  follow(root.getAttribute('data-events'), function (status) {
    for (var key in drawn) {
      if (Object.prototype.hasOwnProperty.call(drawn, key) && status[key] !== drawn[key]) {
        reload();
        return;
      }
    }
  });
})();
