import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  convertIntensityObservation,
  convertLgIntensityObservation,
} from '../../src/conversion/intensity-observation.ts';
import { parseXmlElement } from '../../src/conversion/xml-element.ts';

const station = (name: string, code: string, int: string, extra = '') =>
  `<IntensityStation><Name>${name}</Name><Code>${code}</Code><Int>${int}</Int>${extra}</IntensityStation>`;

const OBSERVATION = `<Observation><MaxInt>5-</MaxInt>
  <Pref><Name>乙県</Name><Code>02</Code><MaxInt>3</MaxInt>
    <Area><Name>乙県北部</Name><Code>201</Code><MaxInt>3</MaxInt><Revise>下方修正</Revise>
      <City><Name>乙市</Name><Code>0220100</Code><MaxInt>3</MaxInt>
        ${station('乙市一', '0220101', '3')}${station('乙市二', '0220102', '1', '<Revise>追加</Revise>')}
      </City>
      <City><Name>未入電町</Name><Code>0230000</Code><Condition>震度５弱以上未入電</Condition>
        ${station('未入電町一', '0230001', '震度５弱以上未入電')}
      </City>
    </Area>
  </Pref>
  <Pref><Name>甲県</Name><Code>01</Code><MaxInt>5-</MaxInt><Revise>上方修正</Revise>
    <Area><Name>甲県南部</Name><Code>101</Code><MaxInt>5-</MaxInt>
      <City><Name>甲市</Name><Code>0110000</Code><MaxInt>5-</MaxInt><Condition>震度５弱以上未入電</Condition>
        ${station('甲市一', '0110001', '5-')}${station('甲市二', '0110002', '3')}
      </City>
    </Area>
  </Pref>
</Observation>`;

test('intensity lists: flattened per level, strongest first then by code, !5- and no intensity last', () => {
  const observation = parseXmlElement(OBSERVATION);
  assert.deepEqual(convertIntensityObservation(observation, true), {
    maxInt: '5-',
    prefectures: [
      { code: '01', name: '甲県', maxInt: '5-', revise: '上方修正' },
      { code: '02', name: '乙県', maxInt: '3' },
    ],
    regions: [
      { code: '101', name: '甲県南部', maxInt: '5-' },
      { code: '201', name: '乙県北部', maxInt: '3', revise: '下方修正' },
    ],
    cities: [
      { code: '0110000', name: '甲市', maxInt: '5-', condition: '震度５弱以上未入電' },
      { code: '0220100', name: '乙市', maxInt: '3' },
      { code: '0230000', name: '未入電町', condition: '震度５弱以上未入電' },
    ],
    stations: [
      { code: '0110001', name: '甲市一', int: '5-' },
      { code: '0110002', name: '甲市二', int: '3' },
      { code: '0220101', name: '乙市一', int: '3' },
      { code: '0220102', name: '乙市二', int: '1', revise: '追加' },
      { code: '0230001', name: '未入電町一', int: '!5-', condition: '震度５弱以上未入電' },
    ],
  });
});

test('intensity lists without cities (震度速報): prefectures and regions only', () => {
  const result = convertIntensityObservation(parseXmlElement(OBSERVATION), false);
  assert.deepEqual(Object.keys(result), ['maxInt', 'prefectures', 'regions']);
});

test('long-period lists: areas by code, stations by class then code, per-period values joined on the band', () => {
  const lgStation = (code: string, lgInt: string, int: string) =>
    `<IntensityStation><Name>局${code}</Name><Code>${code}</Code>${int}<LgInt>${lgInt}</LgInt>
      <LgIntPerPeriod PeriodicBand="1" PeriodUnit="秒台">${lgInt}</LgIntPerPeriod>
      <LgIntPerPeriod PeriodicBand="2" PeriodUnit="秒台">0</LgIntPerPeriod>
      <Sva unit="cm/s">12.5</Sva>
      <SvaPerPeriod unit="cm/s" PeriodicBand="2" PeriodUnit="秒台">0.4</SvaPerPeriod>
      <SvaPerPeriod unit="cm/s" PeriodicBand="1" PeriodUnit="秒台">12.5</SvaPerPeriod>
    </IntensityStation>`;
  const observation =
    parseXmlElement(`<Observation><MaxInt>4</MaxInt><MaxLgInt>2</MaxLgInt><LgCategory>2</LgCategory>
    <Pref><Name>乙県</Name><Code>02</Code><MaxInt>4</MaxInt><MaxLgInt>2</MaxLgInt>
      <Area><Name>乙県北部</Name><Code>201</Code><MaxInt>4</MaxInt><MaxLgInt>2</MaxLgInt>
        ${lgStation('0220200', '1', '<Int>4</Int>')}${lgStation('0220100', '2', '<Int>3</Int>')}
      </Area>
    </Pref>
    <Pref><Name>甲県</Name><Code>01</Code><MaxLgInt>1</MaxLgInt><Revise>追加</Revise>
      <Area><Name>甲県南部</Name><Code>101</Code><MaxLgInt>1</MaxLgInt>${lgStation('0110000', '1', '')}</Area>
    </Pref>
  </Observation>`);
  const result = convertLgIntensityObservation(observation);
  assert.deepEqual(
    { ...result, stations: undefined },
    {
      maxInt: '4',
      maxLgInt: '2',
      lgCategory: '2',
      prefectures: [
        { code: '01', name: '甲県', maxLgInt: '1', revise: '追加' },
        { code: '02', name: '乙県', maxInt: '4', maxLgInt: '2' },
      ],
      regions: [
        { code: '101', name: '甲県南部', maxLgInt: '1' },
        { code: '201', name: '乙県北部', maxInt: '4', maxLgInt: '2' },
      ],
      stations: undefined,
    },
  );
  assert.deepEqual(
    result.stations.map((s) => [s.code, s.int, s.lgInt]),
    [
      ['0220100', '3', '2'],
      ['0110000', undefined, '1'],
      ['0220200', '4', '1'],
    ],
  );
  assert.deepEqual(result.stations[0]?.sva, { unit: 'cm/s', value: '12.5' });
  assert.deepEqual(result.stations[0]?.prePeriods, [
    { periodicBand: { unit: '秒台', value: '1' }, lgInt: '2', sva: { unit: 'cm/s', value: '12.5' } },
    { periodicBand: { unit: '秒台', value: '2' }, lgInt: '0', sva: { unit: 'cm/s', value: '0.4' } },
  ]);
  assert.ok(!('int' in result.stations[1]!));
});
