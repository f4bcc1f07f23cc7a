/**
 * JMA's published correspondence between Control/Title and data type code, for telegrams whose
 * transport carried no type. Titles that cover several codes are resolved by Head/Title where JMA
 * makes that possible; otherwise the type is undeterminable and the telegram is rejected.
 */
const single: Record<string, string> = {
  季節観測: 'VGSK50',
  生物季節観測: 'VGSK55',
  特殊気象報: 'VGSK60',
  全般台風情報: 'VPTI50',
  '全般台風情報（定型）': 'VPTI51',
  '全般台風情報（詳細）': 'VPTI52',
  '全般海上警報（定時）（Ｈ２９）': 'VPZU52',
  '全般海上警報（臨時）（Ｈ２９）': 'VPZU53',
  '地方海上警報（Ｈ２８）': 'VPCU51',
  '地方海上予報（Ｈ２８）': 'VPCY51',
  '気象警報・注意報（Ｈ２７）': 'VPWW54',
  '気象特別警報・警報・注意報': 'VPWW53',
  '気象警報・注意報（Ｒ０６）（大雨）': 'VPWW55',
  '気象警報・注意報（Ｒ０６）（土砂）': 'VPWW56',
  '気象警報・注意報（Ｒ０６）（高潮）': 'VPWW57',
  '気象警報・注意報（Ｒ０６）（暴風）': 'VPWW58',
  '気象警報・注意報（Ｒ０６）（波浪）': 'VPWW59',
  '気象警報・注意報（Ｒ０６）（大雪）': 'VPWW60',
  '気象警報・注意報（Ｒ０６）（その他注意報）': 'VPWW61',
  '気象警報・注意報時系列情報（Ｒ０６）': 'VPWP50',
  気象特別警報報知: 'VPNO50',
  記録的短時間大雨情報: 'VPOA50',
  土砂災害警戒情報: 'VXWW50',
  竜巻注意情報: 'VPHW50',
  '竜巻注意情報（目撃情報付き）': 'VPHW51',
  全般気象情報: 'VPZJ50',
  全般気象解説情報: 'VPZJ51',
  地方気象情報: 'VPCJ50',
  地方気象解説情報: 'VPCJ51',
  府県気象情報: 'VPFJ50',
  府県気象解説情報: 'VPFJ51',
  府県気象防災速報: 'VPBS50',
  全般潮位情報: 'VMCJ50',
  地方潮位情報: 'VMCJ51',
  府県潮位情報: 'VMCJ52',
  '全般気象解説情報（潮位）': 'VMCJ53',
  '地方気象解説情報（潮位）': 'VMCJ54',
  '府県気象解説情報（潮位）': 'VMCJ55',
  全般天候情報: 'VPZI50',
  地方天候情報: 'VPCI50',
  府県天候情報: 'VPFI50',
  早期天候情報: 'VPAW51',
  熱中症警戒アラート: 'VPFT50',
  スモッグ気象情報: 'VPSG50',
  全般スモッグ気象情報: 'VPZS50',
  府県天気概況: 'VPFG50',
  '府県天気予報（Ｒ１）': 'VPFD51',
  府県週間天気予報: 'VPFW50',
  '警報級の可能性（明日まで）': 'VPFD60',
  '警報級の可能性（明後日以降）': 'VPFW60',
  '早期注意情報（明後日まで）': 'VPFD61',
  '全般季節予報（２週間気温予報）': 'VPZK70',
  '全般暖・寒候期予報': 'VPZK50',
  '地方暖・寒候期予報': 'VPCK50',
  地上実況図: 'VZSA50',
  指定河川洪水予報: 'VXKOii',
  水位周知河川に関する情報: 'VXSUii',
  緊急地震速報配信テスト: 'VXSE42',
  '緊急地震速報（警報）': 'VXSE43',
  '緊急地震速報（予報）': 'VXSE44',
  '緊急地震速報（地震動予報）': 'VXSE45',
  震度速報: 'VXSE51',
  震源に関する情報: 'VXSE52',
  '震源・震度に関する情報': 'VXSE53',
  地震の活動状況等に関する情報: 'VXSE56',
  地震回数に関する情報: 'VXSE60',
  顕著な地震の震源要素更新のお知らせ: 'VXSE61',
  長周期地震動に関する観測情報: 'VXSE62',
  南海トラフ地震臨時情報: 'VYSE50',
  '北海道・三陸沖後発地震注意情報': 'VYSE60',
  '津波警報・注意報・予報a': 'VTSE41',
  津波情報a: 'VTSE51',
  沖合の津波観測に関する情報: 'VTSE52',
  '地震・津波に関するお知らせ': 'VZSE40',
  '噴火警報・予報': 'VFVO50',
  火山の状況に関する解説情報: 'VFVO51',
  噴火に関する火山観測報: 'VFVO52',
  '降灰予報（定時）': 'VFVO53',
  '降灰予報（速報）': 'VFVO54',
  '降灰予報（詳細）': 'VFVO55',
  噴火速報: 'VFVO56',
  推定噴煙流向報: 'VFVO60',
  '火山現象に関する海上警報・海上予報': 'VFSVii',
  火山に関するお知らせ: 'VZVO40',
};

export type TitleLookup = { type: string } | { reason: string };

/** The data type code for a Control/Title (+ Head/Title), or why it cannot be determined. */
export function typeFromTitle(controlTitle: string, headTitle: string): TitleLookup {
  const found = single[controlTitle];
  if (found) return { type: found };
  if (controlTitle === '南海トラフ地震関連解説情報') {
    // Numbered extraordinary explanations (（第N号）) are VYSE51; the regular one is VYSE52.
    return { type: /（第[０-９0-9]+号）/.test(headTitle) ? 'VYSE51' : 'VYSE52' };
  }
  if (controlTitle.startsWith('台風解析・予報情報')) {
    return {
      reason: `Control/Title "${controlTitle}" is shared by VPTW60–VPTW65: the transport must give the type`,
    };
  }
  return { reason: `no data type code is known for Control/Title "${controlTitle}"` };
}
