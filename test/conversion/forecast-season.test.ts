import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixture } from '../support/fixtures.ts';
import { convertFixture, fixtureSchemaTests } from './gold.ts';

fixtureSchemaTests(['VPZK50', 'VPCK50']);

const probability = (type: string, values: [string, string, string], significant: boolean[] = []) => {
  const [low, high] = type === '気温' ? ['低い', '高い'] : ['少ない', '多い'];
  const entry = (t: string, value: string, i: number) => ({
    type: t,
    unit: '%',
    value,
    ...(significant[i] ? { significant: true } : {}),
  });
  return {
    type,
    belowNormal: entry(`平年より${low}確率`, values[0], 0),
    norma: entry('平年並みの確率', values[1], 1),
    aboveNormal: entry(`平年より${high}確率`, values[2], 2),
  };
};

test('VPCK50 北海道地方寒候期予報, written from the XML', () => {
  const outcome = convertFixture(fixture('official', '52_03_01_091210_VPCK50.xml'), 'VPCK50');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  assert.equal(outcome.document.targetDuration, 'P5M');
  assert.equal(outcome.document.eventId, null);
  const hokkaido = { code: '010100', name: '北海道地方' };
  assert.deepEqual(outcome.document.body, {
    notice: 'お知らせ　これは検討中の案です。',
    target: hokkaido,
    seasons: [
      {
        type: '季節予報',
        period: {
          dateTime: { value: '2053-12-01T00:00:00+09:00', validFormat: 'yyyy-mm-dd' },
          duration: 'P3M',
          name: '冬（１２月から２月）',
        },
        items: [
          {
            kinds: [
              {
                type: '出現の可能性が最も大きい天候と、特徴のある気温、降水量等の確率',
                summaries: [
                  {
                    text: '冬型の気圧配置が弱まり、日本海側では平年より雪の日が少ないでしょう。太平洋側やオホーツク海側では平年より晴れる日が少ない見込みです。',
                    significances: [
                      { type: '気温', value: '平均気温は、平年より高い確率が５０％です。' },
                      { type: '降水量', value: '降水量は、平年より多い確率が５０％です。' },
                      {
                        type: '降雪量',
                        value: '日本海側の降雪量は、平年並の確率または多い確率がともに４０％です。',
                      },
                    ],
                  },
                ],
              },
            ],
            zones: [hokkaido],
          },
          {
            kinds: [
              {
                type: '地域・期間平均平年偏差各階級の確率',
                probabilities: [probability('気温', ['20', '30', '50'], [false, false, true])],
              },
            ],
            zones: [hokkaido],
          },
          {
            kinds: [
              {
                type: '地域・期間平均平年偏差各階級の確率',
                probabilities: [probability('降水量', ['20', '30', '50'], [false, false, true])],
              },
            ],
            zones: [hokkaido],
          },
          {
            kinds: [
              {
                type: '地域・期間平均平年偏差各階級の確率',
                probabilities: [probability('降雪量', ['20', '40', '40'], [false, true, true])],
              },
            ],
            zones: [{ code: '010101', name: '北海道日本海側' }],
          },
        ],
      },
    ],
    forecastAddition: {
      nextForecastSchedules: [
        {
          type: '１か月予報',
          text: '毎週木曜日　１４時３０分　次回は９月２５日',
          dateTime: '2053-09-25T14:30:00+09:00',
        },
        { type: '３か月予報', text: '１０月２４日（金）　１４時', dateTime: '2053-10-24T14:00:00+09:00' },
      ],
      scheduleNotice:
        '寒候期予報については、１０月の３か月予報に合わせて予報内容を再検討し、変更がある場合には修正発表します。また、１１月の３か月予報発表以降、冬の予報については、最新の３か月予報等をご利用下さい。',
      additionalNotice: 'なお、１１月までの予報については、最新の３か月予報等をご覧下さい。',
    },
  });
});

const threeMonths = `<Report><Control><Title>地方３か月予報</Title><DateTime>2024-09-24T05:00:00Z</DateTime><Status>通常</Status>
<EditorialOffice>札幌管区気象台</EditorialOffice><PublishingOffice>札幌管区気象台</PublishingOffice></Control>
<Head><Title>北海道地方３か月予報</Title><ReportDateTime>2024-09-24T14:00:00+09:00</ReportDateTime>
<TargetDateTime>2024-10-01T00:00:00+09:00</TargetDateTime><TargetDuration>P3M</TargetDuration><EventID/><InfoType>発表</InfoType>
<Serial/><InfoKind>季節予報</InfoKind><InfoKindVersion>1.0_0</InfoKindVersion><Headline><Text/></Headline></Head>
<Body><TargetArea><Name>北海道地方</Name><Code>010100</Code></TargetArea>
<MeteorologicalInfos type="季節予報">
<MeteorologicalInfo><DateTime significant="yyyy-mm-dd">2024-10-01T00:00:00+09:00</DateTime><Duration>P3M</Duration><Name>向こう３か月</Name>
<Item><Kind><Property><Type>地域・期間平均平年偏差各階級の確率</Type><ClimateProbabilityValuesPart>
<ClimateProbabilityValues kind="気温"><ProbabilityOfBelowNormal unit="%">20</ProbabilityOfBelowNormal>
<ProbabilityOfNormal unit="%">30</ProbabilityOfNormal><ProbabilityOfAboveNormal unit="%" significant="true">50</ProbabilityOfAboveNormal></ClimateProbabilityValues>
</ClimateProbabilityValuesPart></Property></Kind><Areas><Area><Name>北海道地方</Name><Code>010100</Code></Area></Areas></Item>
</MeteorologicalInfo>
<TimeSeriesInfo><TimeDefines>
<TimeDefine timeId="1"><DateTime significant="yyyy-mm-dd">2024-10-01T00:00:00+09:00</DateTime><Duration>P1M</Duration><Name>１０月</Name></TimeDefine>
<TimeDefine timeId="2"><DateTime significant="yyyy-mm-dd">2024-11-01T00:00:00+09:00</DateTime><Duration>P1M</Duration><Name>１１月</Name></TimeDefine>
</TimeDefines>
<Item><Kind><Property><Type>出現の可能性が最も大きい天候と、特徴のある気温、降水量等の確率</Type>
<ClimateFeaturePart><GeneralSituationText refID="1">天気は数日の周期で変わるでしょう。</GeneralSituationText>
<GeneralSituationText refID="2">平年と同様に曇りや雪の日が多いでしょう。</GeneralSituationText></ClimateFeaturePart>
</Property></Kind><Areas><Area><Name>北海道地方</Name><Code>010100</Code></Area></Areas></Item>
<Item><Kind><Property><Type>地域・期間平均平年偏差各階級の確率</Type><ClimateProbabilityValuesPart>
<ClimateProbabilityValues kind="気温" refID="1"><ProbabilityOfBelowNormal unit="%">10</ProbabilityOfBelowNormal>
<ProbabilityOfNormal unit="%">30</ProbabilityOfNormal><ProbabilityOfAboveNormal unit="%" significant="true">60</ProbabilityOfAboveNormal></ClimateProbabilityValues>
<ClimateProbabilityValues kind="気温" refID="2"><ProbabilityOfBelowNormal unit="%">30</ProbabilityOfBelowNormal>
<ProbabilityOfNormal unit="%">40</ProbabilityOfNormal><ProbabilityOfAboveNormal unit="%">30</ProbabilityOfAboveNormal></ClimateProbabilityValues>
</ClimateProbabilityValuesPart></Property></Kind><Areas><Area><Name>北海道地方</Name><Code>010100</Code></Area></Areas></Item>
</TimeSeriesInfo>
</MeteorologicalInfos></Body></Report>`;

test('VPCK50 ３か月予報 without a summary for the period, with a monthly time series', () => {
  const outcome = convertTelegram(threeMonths, 'VPCK50', 'id');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as {
    notice?: string;
    seasons: { items: unknown[] }[];
    timeSeries: unknown[];
    forecastAddition: unknown;
  };
  assert.equal(body.notice, undefined);
  assert.deepEqual(body.seasons[0]?.items[0], { condition: '要素なし' });
  const hokkaido = { code: '010100', name: '北海道地方' };
  assert.deepEqual(body.timeSeries, [
    {
      timeDefines: [
        { timeId: '1', dateTime: '2024-10-01T00:00:00+09:00', duration: 'P1M', name: '１０月' },
        { timeId: '2', dateTime: '2024-11-01T00:00:00+09:00', duration: 'P1M', name: '１１月' },
      ],
      items: [
        {
          kinds: [
            {
              type: '出現の可能性が最も大きい天候と、特徴のある気温、降水量等の確率',
              summaries: [
                { refId: '1', text: '天気は数日の周期で変わるでしょう。', significances: [] },
                { refId: '2', text: '平年と同様に曇りや雪の日が多いでしょう。', significances: [] },
              ],
            },
          ],
          zones: [hokkaido],
        },
        {
          kinds: [
            {
              type: '地域・期間平均平年偏差各階級の確率',
              probabilities: [
                { refId: '1', ...probability('気温', ['10', '30', '60'], [false, false, true]) },
                { refId: '2', ...probability('気温', ['30', '40', '30']) },
              ],
            },
          ],
          zones: [hokkaido],
        },
      ],
    },
  ]);
  assert.deepEqual(body.forecastAddition, {
    nextForecastSchedules: [],
    scheduleNotice: null,
    additionalNotice: null,
  });
});

const SUMMARY = '出現の可能性が最も大きい天候と、特徴のある気温、降水量等の確率';

test('VPCK50 北海道地方３か月予報: one summary per time, its text and significances by their own refID', () => {
  const outcome = convertFixture(fixture('rest', '52_08_01_091210_VPCK50.xml'), 'VPCK50');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as {
    timeSeries: { timeDefines: { timeId: string }[]; items: unknown[] }[];
  };
  assert.deepEqual(
    body.timeSeries[0]!.timeDefines.map((d) => d.timeId),
    ['1', '2', '3'],
  );
  // GeneralSituationText refID 1–3; SignificantClimateElement 気温 and 降水量 each with one Text refID 3.
  assert.deepEqual(body.timeSeries[0]!.items[0], {
    kinds: [
      {
        type: SUMMARY,
        summaries: [
          {
            refId: '1',
            text: '平年と同様に、日本海側では曇りや雪または雨の日が多く、太平洋側では晴れる日が多い見込みです。',
            significances: [],
          },
          {
            refId: '2',
            text: '平年と同様に、日本海側では曇りや雪の日が多く、太平洋側では晴れる日が多いでしょう。',
            significances: [],
          },
          {
            refId: '3',
            text: '日本海側では平年より曇りや雪の日が少ないでしょう。太平洋側では低気圧の影響を受けやすく、平年より晴れる日が少ない見込みです。',
            significances: [
              { type: '気温', value: '気温は、平年並の確率と高い確率がともに４０％です。' },
              { type: '降水量', value: '降水量は、太平洋側で平年並の確率と多い確率がともに４０％です。' },
            ],
          },
        ],
      },
    ],
    zones: [{ code: '010100', name: '北海道地方' }],
  });
});

test('VPZK50 全般１か月予報: a summary per time from the significance texts alone, without a general text', () => {
  const outcome = convertFixture(fixture('rest', '51_01_01_140129_VPZK50.xml'), 'VPZK50');
  assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'declined');
  const body = outcome.document.body as {
    timeSeries: { items: { kinds: { summaries?: unknown[] }[] }[] }[];
  };
  assert.deepEqual(body.timeSeries[0]!.items[0]!.kinds[0]!.summaries, [
    {
      refId: '1',
      significances: [
        {
          type: '気温',
          value:
            '気温は、１週目は北日本と東日本で高い確率８０％、西日本で高い確率６０％、沖縄・奄美で平年並の確率５０％です。',
        },
      ],
    },
    {
      refId: '2',
      significances: [
        {
          type: '気温',
          value: '２週目は北日本と東日本で高い確率５０％、西日本で平年並または高い確率ともに４０％です。',
        },
      ],
    },
    {
      refId: '3',
      significances: [
        {
          type: '気温',
          value:
            '３～４週目は北日本と東日本、西日本で高い確率５０％、沖縄・奄美で平年並または高い確率ともに４０％です。',
        },
      ],
    },
  ]);
});
