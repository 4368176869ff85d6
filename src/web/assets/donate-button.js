// Almoner's donate button, for any page: each link <a class="almoner-donate" href="…/donate/…">
// becomes a button (large enough to tap on a phone, its contrast readable); without this script
// the link works as it is. It reads nothing of the page and sends nothing anywhere.
(function () {
  'use strict';
  var look = [
    'display:inline-block',
    'box-sizing:border-box',
    'min-height:44px',
    'padding:11px 20px',
    'border-radius:8px',
    'background:#1f6f43',
    'color:#ffffff',
    'font:600 16px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
    'text-decoration:none',
    'text-align:center',
    'max-width:100%',
  ].join(';');
  function style() {
    var links = document.querySelectorAll('a.almoner-donate');
    for (var i = 0; i < links.length; i++) {
      var a = links[i];
      if (a.getAttribute('data-almoner-button') === '1') continue;
      a.setAttribute('data-almoner-button', '1');
      a.setAttribute('style', look + ';' + (a.getAttribute('style') || ''));
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', style);
  else style();
})();
