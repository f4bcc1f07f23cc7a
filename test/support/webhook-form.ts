/** The console's webhook creation form filled by keyboard in Chromium, as a person fills it. */
import type { Page } from 'playwright-core';

/** Replaces a text field's value by keyboard (an empty text leaves it empty). */
export async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  if (text) await page.keyboard.type(text);
}

/** Presses a key on a control reached by focus, waiting for the page it submits to. */
export async function pressOn(page: Page, selector: string, key: string): Promise<void> {
  await page.locator(selector).focus();
  await Promise.all([page.waitForEvent('load'), page.keyboard.press(key)]);
}

/** Presses Enter on the form's submit button, waiting for the answer. */
export const submit = (page: Page): Promise<void> => pressOn(page, '#main button[type=submit]', 'Enter');

/**
 * Fills the creation form by keyboard: the URL typed, the format (when given) chosen by Space, the
 * token and areas (when given) typed, and the telegram.earthquake box, found by its label, ticked by
 * Space (left unticked with `earthquake: false`).
 */
export async function fillWebhookForm(
  page: Page,
  fields: { url: string; format?: string; token?: string; areas?: string; earthquake?: boolean },
): Promise<void> {
  await typeInto(page, '#url', fields.url);
  if (fields.format !== undefined) {
    await page.locator(`#format-${fields.format}`).focus();
    await page.keyboard.press('Space');
  }
  if (fields.token !== undefined) await typeInto(page, '#token', fields.token);
  if (fields.areas !== undefined) await typeInto(page, '#areas', fields.areas);
  const box = page.getByRole('checkbox', { name: /telegram\.earthquake/ });
  if ((await box.isChecked()) !== (fields.earthquake ?? true)) {
    await box.focus();
    await page.keyboard.press('Space');
  }
}
