import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAccessible } from '../../support/chromium.ts';
import { fixture, LiveFacts, xmlText } from './live-facts-support.ts';

/**
 * A telegram that withdraws (取消) or corrects (訂正) an earlier one is marked so in the live view's
 * list (docs/console-live.md "Newest telegrams"), as it arrives and after a reload: a cancellation
 * may carry the title of what it withdraws (JMA's sample 取消 of a 震源・震度情報 has its title and
 * no headline), and a reader must not take it for the report itself.
 */
const live = new LiveFacts();
before(() => live.start());
after(() => live.stop());

const CANCELLATION = fixture('jma-official-samples', '32-35_06_06_100915_VXSE53.xml');
const ISSUE = fixture('jma-official-samples', '32-35_06_03_240613_VXSE53.xml');

test('a cancellation and a correction are marked as such in the list, in both languages', async () => {
  assert.equal(xmlText(CANCELLATION, /<InfoType>([^<]+)</), '取消');
  assert.equal(xmlText(ISSUE, /<InfoType>([^<]+)</), '発表');
  const correction = ISSUE.replace(/<InfoType>発表<\/InfoType>/, '<InfoType>訂正</InfoType>');
  for (const [lang, cancelled, corrected] of [
    ['en', 'cancelled (取消)', 'correction (訂正)'],
    ['ja', '取消', '訂正'],
  ] as const) {
    const { page, close } = await live.signedIn(lang);
    try {
      /** The marks of the telegram's line, once it is listed. */
      const marksOf = async (serial: number) => {
        const line = page.locator(`#telegram-list li[data-serial="${serial}"]`);
        await line.waitFor();
        return (await line.locator('.amends').allTextContents()).join();
      };
      const issued = await live.ingest(ISSUE, 'VXSE53.xml');
      assert.equal(await marksOf(issued), '', `${lang}: an issue carries no mark`);
      const withdrawn = await live.ingest(CANCELLATION, 'VXSE53.xml');
      assert.equal(await marksOf(withdrawn), cancelled, `${lang}: the cancellation`);
      const amended = await live.ingest(correction, 'VXSE53.xml');
      assert.equal(await marksOf(amended), corrected, `${lang}: the correction`);
      // The lines the server renders when the page opens say the same.
      await page.reload();
      assert.equal(await marksOf(amended), corrected, `${lang} reloaded`);
      assert.equal(await marksOf(withdrawn), cancelled, `${lang} reloaded`);
      assert.equal(await marksOf(issued), '', `${lang} reloaded`);
      await assertAccessible(page, `amended telegrams (${lang})`);
    } finally {
      await close();
    }
  }
});
