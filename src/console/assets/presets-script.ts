/**
 * The scope presets of the API key form, in place: a preset button ticks its scopes without a round
 * trip. Without the script the same button posts the form and the server answers with the boxes
 * ticked (credentials/routes.ts), so the presets work either way. Served as a static file from 'self'.
 */
export const PRESETS_SCRIPT = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('button[data-preset-scopes]');
  if (!button || !button.form) return;
  event.preventDefault();
  var wanted = button.getAttribute('data-preset-scopes').split(' ');
  button.form.querySelectorAll('input[type=checkbox][name=scope]').forEach(function (box) {
    box.checked = wanted.indexOf(box.value) !== -1;
  });
  var status = document.getElementById(button.getAttribute('aria-describedby').replace(/-hint$/, '-status'));
  if (status) status.textContent = button.textContent + ' \\u2713';
});
`;
