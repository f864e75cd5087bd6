// The page is complete without this script (it reloads itself through <noscript> meta refresh).
// With it: the status arrives as server-sent events (GET /api/v1/checkout/sessions/{id}/events, through
// live.js, loaded before this script) and
// the page is read again (a GET: every page is one) when what it says changed; confirmations are
// counted in place. The countdown ticks, copy buttons work, and a completed payment goes back to the
// merchant's success URL after a few seconds (the server leaves data-redirect-url out while the page
// asks for a refund address: the customer stays to answer it).
(function () {
  var root = document.getElementById('checkout');
  if (!root) return;
  var id = root.getAttribute('data-session-id');
  var shown = root.getAttribute('data-status');

  var redirect = root.getAttribute('data-redirect-url');
  if (redirect) {
    setTimeout(
      function () {
        window.location.assign(redirect);
      },
      Number(root.getAttribute('data-redirect-after') || '3') * 1000,
    );
  }

  var clock = document.getElementById('countdown');
  if (clock) {
    var expiresAt = Date.parse(clock.getAttribute('datetime'));
    var pad = function (n) {
      return (n < 10 ? '0' : '') + n;
    };
    var tick = function () {
      var left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
      var h = Math.floor(left / 3600),
        m = Math.floor((left % 3600) / 60),
        s = left % 60;
      clock.textContent = h > 0 ? h + ':' + pad(m) + ':' + pad(s) : m + ':' + pad(s);
      if (left === 0) {
        setTimeout(function () {
          window.location.reload();
        }, 2000);
        return;
      }
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
        setTimeout(function () {
          button.textContent = label;
        }, 2000);
      };
      field.select();
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, function () {
          if (document.execCommand('copy')) done();
        });
      } else if (document.execCommand('copy')) {
        done();
      }
    });
  });

  // A wrapping field still sends its form on Enter, as a one-line field would (an address has no line breaks).
  Array.prototype.forEach.call(document.querySelectorAll('textarea[data-submit-on-enter]'), function (field) {
    field.addEventListener('keydown', function (e) {
      if (e.key !== 'Enter' || e.shiftKey || e.isComposing || !field.form) return;
      e.preventDefault();
      field.form.requestSubmit();
    });
  });

  // One tap from a browser wallet (EIP-1193: an injected window.ethereum): accounts, the deposit's
  // chain, then the ERC-20 transfer(address,uint256) the QR code describes. Its calldata is written
  // here (selector a9059cbb, then the address and the amount as 32-byte words) rather than with a
  // library, so the page keeps one small same-origin script under its strict CSP. The page itself
  // learns of the transfer from the chain, through the status stream, as for any wallet.
  var walletButton = document.getElementById('browser-wallet-button');
  var eth = window.ethereum;
  if (walletButton && eth && typeof eth.request === 'function') {
    var walletStatus = document.getElementById('browser-wallet-status');
    var say = function (key) {
      if (walletStatus) walletStatus.textContent = walletButton.getAttribute('data-' + key);
    };
    var word = function (hex) {
      return (new Array(65).join('0') + hex).slice(-64);
    };
    walletButton.hidden = false;
    walletButton.addEventListener('click', function () {
      var chainId = '0x' + Number(walletButton.getAttribute('data-chain-id')).toString(16);
      var to = walletButton.getAttribute('data-to').slice(2).toLowerCase();
      var amount = BigInt(walletButton.getAttribute('data-amount')).toString(16);
      var transfer = {
        to: walletButton.getAttribute('data-token'),
        data: '0xa9059cbb' + word(to) + word(amount),
        value: '0x0',
      };
      walletButton.disabled = true;
      say('working');
      eth
        .request({ method: 'eth_requestAccounts' })
        .then(function (accounts) {
          transfer.from = accounts[0];
          return eth.request({ method: 'eth_chainId' });
        })
        .then(function (current) {
          if (String(current).toLowerCase() === chainId) return null;
          return eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: chainId }] });
        })
        .then(function () {
          return eth.request({ method: 'eth_sendTransaction', params: [transfer] });
        })
        .then(
          function () {
            say('sent');
          },
          function (err) {
            walletButton.disabled = false;
            // 4001: the customer said no in the wallet (EIP-1193).
            say(err && err.code === 4001 ? 'rejected' : 'failed');
          },
        );
    });
  }

  var events = root.getAttribute('data-events');
  if (!events || redirect) return;
  var rendered = {
    status: shown,
    received: root.getAttribute('data-received') || null,
    remaining: root.getAttribute('data-remaining') || null,
    confirming: root.getAttribute('data-confirming') === '1',
    exception: root.getAttribute('data-exception') || null,
    declined: root.getAttribute('data-declined') === '1',
  };
  var numbers = new Intl.NumberFormat(document.documentElement.lang || undefined);
  var reload = window.svcLive.reload;
  function onStatus(s) {
    var exception = s.exception ? s.exception.kind + ':' + s.exception.status : null;
    var confirming = s.confirmations !== null;
    if (
      s.status !== rendered.status ||
      s.received !== rendered.received ||
      s.remaining !== rendered.remaining ||
      confirming !== rendered.confirming ||
      exception !== rendered.exception ||
      s.declined !== rendered.declined
    ) {
      reload();
      return;
    }
    var n = document.getElementById('confirmations');
    if (n && s.confirmations !== null) n.textContent = numbers.format(s.confirmations);
  }
  if (window.svcLive.follow(events, onStatus)) return;
  // Without EventSource: the public lookup, every 2 seconds.
  if (shown !== 'pending' && shown !== 'processing') return;
  function poll() {
    fetch('/api/v1/checkout/sessions/' + encodeURIComponent(id), { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (r) {
        return r.ok ? r.json() : null;
      })
      .then(function (body) {
        if (body && body.status && body.status !== shown) {
          reload();
          return;
        }
        setTimeout(poll, 2000);
      })
      .catch(function () {
        setTimeout(poll, 5000);
      });
  }
  setTimeout(poll, 2000);
})();
