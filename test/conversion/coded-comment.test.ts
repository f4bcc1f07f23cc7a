import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertCodedComment } from '../../src/conversion/coded-comment.ts';
import { parseXmlElement } from '../../src/conversion/xml-element.ts';

const comments = (xml: string) => parseXmlElement(`<Comments>${xml}</Comments>`);

test('one fixed comment: its text and its codes', () => {
  const root = comments(
    '<WarningComment codeType="固定付加文"><Text>強い揺れに警戒してください。</Text><Code>0201</Code></WarningComment>',
  );
  assert.deepEqual(convertCodedComment(root.all('WarningComment')), {
    text: '強い揺れに警戒してください。',
    codes: ['0201'],
  });
});

test('several codes in one Code element and several comments of one kind', () => {
  const root = comments(
    '<ForecastComment><Text>この地震による津波の心配はありません。</Text><Code>0215 0230</Code></ForecastComment>' +
      '<ForecastComment><Text>今後の情報に注意してください。</Text><Code>0229</Code></ForecastComment>',
  );
  assert.deepEqual(convertCodedComment(root.all('ForecastComment')), {
    text: 'この地震による津波の心配はありません。\n今後の情報に注意してください。',
    codes: ['0215', '0230', '0229'],
  });
});

test('no comment of the kind, or an empty one, gives nothing', () => {
  assert.equal(convertCodedComment([]), undefined);
  const root = comments('<WarningComment><Text></Text><Code></Code></WarningComment>');
  assert.equal(convertCodedComment(root.all('WarningComment')), undefined);
});

test('a coded comment keeps its phrases and splits its codes', () => {
  const comment = parseXmlElement(
    '<WarningComment codeType="固定付加文"><Text>津波が来襲します。\n　\n避難してください。\n</Text>' +
      '<Code>0114 0111\t0112</Code></WarningComment>',
  );
  assert.deepEqual(convertCodedComment([comment]), {
    text: '津波が来襲します。\n　\n避難してください。',
    codes: ['0114', '0111', '0112'],
  });
});

test('an absent or empty coded comment (self-closing elements) is undefined', () => {
  assert.equal(convertCodedComment([]), undefined);
  assert.equal(
    convertCodedComment([parseXmlElement('<WarningComment><Text/><Code/></WarningComment>')]),
    undefined,
  );
});
