/* global document, localStorage */
// Runs synchronously in <head>, before the first paint, so a light-theme user never sees a dark
// flash and vice versa. Dark is the default (docs/product.md#theme). The key must match
// src/web/lib/storage.ts.
(function () {
  var theme = 'dark';
  try {
    if (localStorage.getItem('tally:theme') === 'light') theme = 'light';
  } catch {
    // Storage may be disabled (private mode, policies): keep the default.
  }
  var root = document.documentElement;
  if (theme === 'dark') root.classList.add('dark');
  else root.classList.remove('dark');
  root.style.colorScheme = theme;
})();
