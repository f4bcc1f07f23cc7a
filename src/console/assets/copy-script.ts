/**
 * The console's only script: a "copy" button beside a secret shown once. Served as a static file
 * from 'self' (no inline script); without it the value stays selectable by hand.
 */
export const COPY_SCRIPT = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('button[data-copy]');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-status'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent).then(function () {
    if (status) status.textContent = button.getAttribute('data-done');
  });
});
document.querySelectorAll('button[data-copy]').forEach(function (b) { b.hidden = false; });
`;
