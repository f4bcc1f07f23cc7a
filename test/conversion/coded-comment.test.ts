import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertCodedComment } from '../../src/conversion/coded-comment.ts';
import { parseXmlElement } from '../../src/conversion/xml-element.ts';

test('a coded comment keeps its phrases and splits its codes', () => {
  const comment = parseXmlElement(
    '<WarningComment codeType="固定付加文"><Text>津波が来襲します。\n　\n避難してください。\n</Text>' +
      '<Code>0114 0111\t0112</Code></WarningComment>',
  );
  assert.deepEqual(convertCodedComment(comment), {
    text: '津波が来襲します。\n　\n避難してください。',
    codes: ['0114', '0111', '0112'],
  });
});

test('an absent or empty coded comment is undefined', () => {
  assert.equal(convertCodedComment(undefined), undefined);
  assert.equal(
    convertCodedComment(parseXmlElement('<WarningComment><Text/><Code/></WarningComment>')),
    undefined,
  );
});
