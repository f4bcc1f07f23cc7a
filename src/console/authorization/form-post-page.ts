import { markup, page, SafeHtml, scriptHash, type CspOptions } from '../html.ts';

/**
 * The `form_post` response mode: a page whose form POSTs the fields to the client's redirect URI,
 * submitted by one fixed line of script (allowed by its hash, nothing else may run) or by hand when
 * scripts are off.
 */
const AUTO_SUBMIT = 'document.forms[0].submit();';
const AUTO_SUBMIT_HASH = scriptHash(AUTO_SUBMIT);

export function renderFormPostPage(action: string, fields: [string, string][]): string {
  const inputs = fields.map(
    ([name, value]) => markup`<input type="hidden" name="${name}" value="${value}">\n`,
  );
  return page(
    'Returning to the application',
    markup`<form method="post" action="${action}">
${inputs}<noscript><p>Continue to the application.</p><button type="submit">Continue</button></noscript>
</form>
<script>${new SafeHtml(AUTO_SUBMIT)}</script>`,
  );
}

/** CSP additions of the form_post page: its script, and its form's target origin. */
export function formPostCsp(targetSource: string): CspOptions {
  return { formAction: [targetSource], scriptHashes: [AUTO_SUBMIT_HASH] };
}
