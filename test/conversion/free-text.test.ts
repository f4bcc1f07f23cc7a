import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cancellationBody,
  freeFormComments,
  isCancellation,
  writtenText,
} from '../../src/conversion/free-text.ts';
import { parseXmlElement } from '../../src/conversion/xml-element.ts';

const source = (xml: string) => ({ report: parseXmlElement(xml), type: 'VXSE56', originalId: 'x' });

test('free text keeps line breaks and full-width spaces; blank or absent is undefined', () => {
  const text = (xml: string) => writtenText(parseXmlElement(xml));
  assert.equal(text('<Text>\n　一行目\n二行目 \n</Text>'), '\n　一行目\n二行目 \n');
  assert.equal(text('<Text>a &amp; b</Text>'), 'a & b');
  assert.equal(text('<Text>\n  \n</Text>'), undefined);
  assert.equal(text('<Text/>'), undefined);
  assert.equal(writtenText(undefined), undefined);
});

test('a cancellation is told by Head/InfoType and carries Body/Text as written', () => {
  const cancel = source(
    '<Report><Head><InfoType> 取消 </InfoType></Head><Body><Text>誤りですので取り消します。 </Text></Body></Report>',
  );
  assert.equal(isCancellation(cancel), true);
  assert.deepEqual(cancellationBody(cancel), { text: '誤りですので取り消します。 ' });
  assert.equal(isCancellation(source('<Report><Head><InfoType>発表</InfoType></Head></Report>')), false);
  assert.deepEqual(cancellationBody(source('<Report><Head><InfoType>取消</InfoType></Head></Report>')), {
    text: '',
  });
});

test('comments.free comes from Comments/FreeFormComment only', () => {
  const comments = (xml: string) => freeFormComments(parseXmlElement(`<Body>${xml}</Body>`));
  assert.deepEqual(comments('<Comments><FreeFormComment>　注意\n続き</FreeFormComment></Comments>'), {
    free: '　注意\n続き',
  });
  assert.equal(comments('<Comments><WarningComment><Text>x</Text></WarningComment></Comments>'), undefined);
  assert.equal(comments(''), undefined);
  assert.equal(freeFormComments(undefined), undefined);
});
