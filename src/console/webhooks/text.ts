import { MAX_SUBSCRIPTIONS_PER_ACCOUNT } from '../../webhooks/subscriptions.ts';
import type { Messages } from '../i18n.ts';

/** The words of the Webhooks area (docs/console.md "Webhooks"), in both languages. */

type Key =
  | 'title'
  | 'intro'
  | 'none'
  | 'create'
  | 'newTitle'
  | 'url'
  | 'urlHint'
  | 'format'
  | 'format-namazu'
  | 'format-discord'
  | 'format-slack'
  | 'format-ntfy'
  | 'format-misskey'
  | 'token'
  | 'tokenHint'
  | 'visibility'
  | 'visibility-public'
  | 'visibility-home'
  | 'visibility-followers'
  | 'visibilityHint'
  | 'localOnly'
  | 'localOnlyHint'
  | 'yes'
  | 'no'
  | 'lang'
  | 'lang-ja'
  | 'lang-en'
  | 'classifications'
  | 'noContract'
  | 'contractsLink'
  | 'types'
  | 'typesHint'
  | 'test'
  | 'test-no'
  | 'test-including'
  | 'formatMode'
  | 'formatModeHint'
  | 'areas'
  | 'areasHint'
  | 'minIntensity'
  | 'anyIntensity'
  | 'filters'
  | 'submit'
  | 'state'
  | 'active'
  | 'disabled'
  | 'failingSince'
  | 'disabledFailing'
  | 'lastDelivery'
  | 'created'
  | 'secret'
  | 'createdNotice'
  | 'settings'
  | 'all'
  | 'everywhere'
  | 'sendTest'
  | 'sendTestHint'
  | 'testWhat'
  | 'testEventOnly'
  | 'noTestTelegram'
  | 'tested'
  | 'testFailed'
  | 'deliveries'
  | 'noDeliveries'
  | 'delivery'
  | 'testEvent'
  | 'attempts'
  | 'response'
  | 'time'
  | 'pending'
  | 'delivered'
  | 'failed'
  | 'nextAttempt'
  | 'redeliver'
  | 'redelivered'
  | 'showDeliveries'
  | 'allDeliveries'
  | 'failedDeliveries'
  | 'olderDeliveries'
  | 'newestDeliveries'
  | 'noFailedDeliveries'
  | 'recover'
  | 'recoverHint'
  | 'failedKept'
  | 'recoverPeriod'
  | 'period-1h'
  | 'period-6h'
  | 'period-24h'
  | 'period-3d'
  | 'period-7d'
  | 'period-all'
  | 'recovered'
  | 'recoveredNone'
  | 'recoverMalformed'
  | 'delete'
  | 'deleteHint'
  | 'deleteConfirm'
  | 'deleteQuestion'
  | 'cancel'
  | 'deleted'
  | 'cap'
  | 'sentAlready'
  | 'sentAlreadyLink'
  | 'noWebhook'
  | 'noDelivery'
  | 'disabledNoRedelivery'
  | 'enable'
  | 'disable'
  | 'disableHint'
  | 'disabledNotice'
  | 'disabledByOwner'
  | 'enableHint'
  | 'enabled'
  | 'rotate'
  | 'rotateHint'
  | 'secretSince'
  | 'previousUntil'
  | 'previousLegend'
  | 'previousDay'
  | 'previousNone'
  | 'rotatedNotice'
  | 'rotatedAlready'
  | 'rotateMalformed'
  | 'edit'
  | 'editTitle'
  | 'save'
  | 'tokenKeep'
  | 'headers'
  | 'headersHint'
  | 'headersKeep'
  | 'removeHeaders'
  | 'noneSet'
  | 'headerNames'
  | 'mention'
  | 'mentionHint'
  | 'mentionSetting'
  | 'testWithMention'
  | 'mentionOn'
  | 'mentionOn-urgent'
  | 'mentionOn-high'
  | 'heldNoContract'
  | 'updated';

export const webhooksText: Messages<Key> = {
  en: {
    title: 'Webhooks',
    intro:
      'A webhook posts every telegram you choose to a URL of yours, signed, once, with retries for a day when the receiver is down: to your own server, or as a ready-made post to Discord, Slack, ntfy or Misskey.',
    none: 'You have no webhook.',
    create: 'Create a webhook',
    newTitle: 'Create a webhook',
    url: 'URL',
    urlHint:
      'Where to POST: your receiver; Discord or Slack: the incoming-webhook URL; ntfy: the topic URL; Misskey: https://<instance>/api/notes/create.',
    format: 'Format',
    'format-namazu': 'Namazu: the data message, as the WebSocket sends it',
    'format-discord': 'Discord: a message with an embed',
    'format-slack': 'Slack: a message with blocks',
    'format-ntfy': 'ntfy: a notification with title, priority and tags',
    'format-misskey': 'Misskey: a note',
    token: 'Misskey access token',
    tokenHint:
      'Misskey only: a token with the permission write:notes. It is stored sealed and never shown again.',
    visibility: 'Visibility of notes',
    'visibility-public': 'Public',
    'visibility-home': 'Home (not on the public timelines)',
    'visibility-followers': 'Followers only',
    visibilityHint: 'Misskey only: many instances ask bots to post with Home.',
    localOnly: 'Local only: keep the notes off federation',
    localOnlyHint: 'Misskey only: the notes are not sent to other servers.',
    yes: 'Yes',
    no: 'No',
    lang: 'Language of posts',
    'lang-ja': 'Japanese',
    'lang-en': 'English',
    classifications: 'Classifications',
    noContract: 'Your account has no contract, so it receives nothing. Apply for a plan first:',
    contractsLink: 'Contracts',
    types: 'Telegram types (optional)',
    typesHint: 'Only these types, separated by spaces or commas, e.g. VXSE53 VXSE43. Empty: every type.',
    test: 'Test telegrams',
    'test-no': 'Leave them out',
    'test-including': 'Include them',
    formatMode: 'Body of the data message',
    formatModeHint: 'Namazu format only: raw (the XML) or json (the JSON conversion).',
    areas: 'Areas (optional)',
    areasHint:
      'Prefecture codes (01–47) or JMA area codes, separated by commas, e.g. 13,14. Empty: everywhere. A cancellation always reaches you.',
    minIntensity: 'Lowest intensity of earthquakes and early warnings',
    anyIntensity: 'Any',
    filters: 'What to send',
    submit: 'Create webhook',
    state: 'State',
    active: 'Active',
    disabled: 'Disabled',
    failingSince: 'failing since',
    disabledFailing: 'every delivery failed since',
    lastDelivery: 'Last delivery',
    created: 'Created',
    secret: 'Signing secret (verify the webhook-signature header with it)',
    createdNotice: 'The webhook was created. It receives the telegrams stored from now on.',
    settings: 'Settings',
    all: 'all',
    everywhere: 'everywhere',
    sendTest: 'Send a test',
    sendTestHint:
      'Posts a signed test event to the URL now and shows what the receiver answered. With a stored telegram chosen, the event carries what its delivery posts, marked as a test.',
    testWhat: 'What to send',
    testEventOnly: 'a test event',
    noTestTelegram:
      "No such stored telegram of this webhook's classifications: nothing was sent. Choose one on the webhook's page.",
    tested: 'The test event was delivered',
    testFailed: 'The test event was not delivered',
    deliveries: 'Deliveries',
    noDeliveries: 'Nothing was delivered yet.',
    delivery: 'Delivery',
    testEvent: 'test event',
    attempts: 'Attempts',
    response: 'Response',
    time: 'Last attempt',
    pending: 'pending',
    delivered: 'delivered',
    failed: 'failed',
    nextAttempt: 'next attempt',
    redeliver: 'Redeliver',
    redelivered: 'The delivery is queued again, with the same webhook-id; it is sent within seconds.',
    showDeliveries: 'Show',
    allDeliveries: 'all deliveries',
    failedDeliveries: 'failed ones only',
    olderDeliveries: 'Older deliveries',
    newestDeliveries: 'Newest deliveries',
    noFailedDeliveries: 'No delivery failed.',
    recover: 'Redeliver failed deliveries',
    recoverHint:
      'When the receiver was down for longer than the day of retries: every failed delivery of a telegram received in the chosen time is queued again, each with its own webhook-id and a new day of retries, oldest first and after fresh early warnings.',
    failedKept: 'Failed deliveries kept: %s, the oldest of a telegram received %s.',
    recoverPeriod: 'Those of telegrams received in the last',
    'period-1h': 'hour',
    'period-6h': '6 hours',
    'period-24h': '24 hours',
    'period-3d': '3 days',
    'period-7d': '7 days',
    'period-all': '30 days (all kept)',
    recovered:
      'Failed deliveries queued again: %s. Each keeps its webhook-id; they are sent over the next minutes.',
    recoveredNone: 'No failed delivery of a telegram received in that time: nothing was queued.',
    recoverMalformed: "The form was malformed: nothing was queued. Use the form on the webhook's page.",
    delete: 'Delete this webhook',
    deleteHint: 'Its queued deliveries are dropped; nothing more is posted to its URL.',
    deleteConfirm: 'Delete webhook',
    deleteQuestion: 'Delete this webhook and its deliveries? This cannot be undone.',
    cancel: 'Cancel',
    deleted: 'The webhook was deleted.',
    cap: `Your account holds ${MAX_SUBSCRIPTIONS_PER_ACCOUNT} webhooks, its limit. Delete one to create another.`,
    sentAlready:
      'This form was sent already and its webhook created; its signing secret was shown then, and is not shown again. Nothing was created now. To get a new secret, delete that webhook and create it again; to create a second one anyway, send this form.',
    sentAlreadyLink: 'Open the webhook',
    noWebhook: 'No such webhook of your account.',
    noDelivery:
      'No such delivery of this webhook that can be redelivered (a test event is sent again by another test).',
    disabledNoRedelivery:
      'This webhook is disabled: nothing is delivered to it. Enable it again first, on its page.',
    disable: 'Disable',
    disableHint:
      'Pauses the webhook: nothing is posted to its URL until it is enabled again, and the telegrams received meanwhile are not sent. Its pending deliveries fail; once it is enabled again they can be redelivered.',
    disabledNotice: 'The webhook is disabled: nothing is posted to its URL until it is enabled again.',
    disabledByOwner: 'disabled by you',
    enable: 'Enable again',
    enableHint:
      'It receives the telegrams received from now on, signed with the same secret; those received while it was disabled are not sent. Its failed deliveries can then be redelivered below, one by one or all those of a time. Send a test first to see that the receiver answers.',
    enabled: 'The webhook is enabled again: it receives the telegrams received from now on.',
    rotate: 'Rotate the signing secret',
    rotateHint:
      'A new secret is made and shown once. Give it to your receiver; meanwhile every attempt carries a signature under each secret, and the receiver accepts either.',
    secretSince: 'The current secret since',
    previousUntil: 'the secret it replaced signs beside it until',
    previousLegend: 'The current secret',
    previousDay: 'goes on signing beside the new one for a day (the receiver moves over meanwhile)',
    previousNone: 'stops at once (it may have leaked)',
    rotatedNotice: 'The signing secret was rotated. The new secret is below, shown only this once.',
    rotateMalformed: "The form was malformed: nothing was rotated. Use the form on the webhook's page.",
    edit: 'Change the settings',
    editTitle: 'Change a webhook',
    save: 'Save the settings',
    tokenKeep: 'Misskey only. Leave it empty to keep the token stored; a token typed replaces it.',
    headers: 'Extra request headers (optional)',
    headersHint:
      'One "Name: value" per line, sent with every delivery and test: for a receiver that asks for a key, such as ntfy\'s "Authorization: Bearer tk_…". The values are stored sealed and never shown again.',
    headersKeep:
      'Leave it empty to keep the headers set now (their values are not shown); lines typed replace them all. Set now:',
    removeHeaders: 'Remove the extra request headers',
    noneSet: 'none',
    headerNames: 'Extra request headers',
    mention: 'Mention (optional)',
    mentionSetting: 'Mention',
    testWithMention: 'with the mention, which pings (a test never does otherwise):',
    mentionHint:
      'Discord or Slack only: one mention written before the posts of severe telegrams, as the service writes it. Discord: <@&role id>, <@user id>, @here, @everyone; Slack: <!channel>, <!here>, <@user id>, <!subteam^group id>. Nothing else in a post ever pings anyone, and a test never does.',
    mentionOn: 'Mention in the posts of',
    'mentionOn-urgent': 'early-warning warnings and major tsunami warnings',
    'mentionOn-high':
      'those, and every severe telegram (tsunami warnings, intensity 5- and more, eruptions…)',
    heldNoContract: 'no running contract: delivered again when one is; kept while ticked',
    updated: 'The settings were saved. The next telegram goes where and as they say; the secret is the same.',
    rotatedAlready:
      "This form was sent already and the secret rotated; the new secret was shown then and is not shown again. Nothing was rotated now. To rotate again, use the form on the webhook's page.",
  },
  ja: {
    title: 'Webhook',
    intro:
      'Webhookは、選んだ電文を署名付きで1回ずつ指定のURLへPOSTします。受信側が止まっていても1日間再送します。自分のサーバーへ送るほか、Discord・Slack・ntfy・Misskey向けの投稿形式も選べます。',
    none: 'Webhookはありません。',
    create: 'Webhookを作成',
    newTitle: 'Webhookの作成',
    url: 'URL',
    urlHint:
      'POST先。DiscordやSlackは受信Webhook（Incoming Webhook）のURL、ntfyはトピックのURL、Misskeyは https://<インスタンス>/api/notes/create。',
    format: '形式',
    'format-namazu': 'Namazu: WebSocketと同じdataメッセージ',
    'format-discord': 'Discord: 埋め込み付きメッセージ',
    'format-slack': 'Slack: ブロック付きメッセージ',
    'format-ntfy': 'ntfy: タイトル・優先度・タグ付きの通知',
    'format-misskey': 'Misskey: ノート',
    token: 'Misskeyのアクセストークン',
    tokenHint: 'Misskeyのみ。write:notes 権限のトークン。暗号化して保存され、二度と表示されません。',
    visibility: 'ノートの公開範囲',
    'visibility-public': 'パブリック',
    'visibility-home': 'ホーム（公開タイムラインには出ません）',
    'visibility-followers': 'フォロワーのみ',
    visibilityHint: 'Misskeyのみ。多くのインスタンスはbotにホームでの投稿を求めています。',
    localOnly: 'ローカルのみ（連合なし）',
    localOnlyHint: 'Misskeyのみ。ノートを他のサーバーへ連合しません。',
    yes: 'はい',
    no: 'いいえ',
    lang: '投稿の言語',
    'lang-ja': '日本語',
    'lang-en': '英語',
    classifications: '分類',
    noContract: 'このアカウントには契約がないため、何も受信しません。先にプランを申し込んでください:',
    contractsLink: '契約',
    types: '電文の種類（任意）',
    typesHint:
      'この種類だけを送ります。空白かコンマで区切ります（例: VXSE53 VXSE43）。空欄ならすべての種類。',
    test: 'テスト電文',
    'test-no': '含めない',
    'test-including': '含める',
    formatMode: 'dataメッセージの本文',
    formatModeHint: 'Namazu形式のみ: raw（XML）または json（JSON変換）。',
    areas: '地域（任意）',
    areasHint:
      '都道府県コード（01〜47）または気象庁の地域コードをコンマで区切って入力します（例: 13,14）。空欄なら全国。取消は必ず届きます。',
    minIntensity: '地震・緊急地震速報の最小震度',
    anyIntensity: '指定なし',
    filters: '送る電文',
    submit: 'Webhookを作成',
    state: '状態',
    active: '有効',
    disabled: '無効',
    failingSince: '失敗継続中、開始',
    disabledFailing: '配信の失敗が継続したため、開始',
    lastDelivery: '最後の配信',
    created: '作成日時',
    secret: '署名シークレット（webhook-signature ヘッダーの検証に使います）',
    createdNotice: 'Webhookを作成しました。これから保存される電文を受信します。',
    settings: '設定',
    all: 'すべて',
    everywhere: '全国',
    sendTest: 'テスト送信',
    sendTestHint:
      '署名付きのテストイベントを今すぐURLへ送り、受信側の応答を表示します。保存されている電文を選ぶと、その電文の配信で送る内容を、テストと分かる形で送ります。',
    testWhat: '送る内容',
    testEventOnly: 'テストイベント',
    noTestTelegram:
      'このWebhookの分類の電文として保存されているものではないため、何も送っていません。Webhookのページで選んでください。',
    tested: 'テストイベントを配信しました',
    testFailed: 'テストイベントを配信できませんでした',
    deliveries: '配信',
    noDeliveries: 'まだ配信はありません。',
    delivery: '配信',
    testEvent: 'テストイベント',
    attempts: '試行回数',
    response: '応答',
    time: '最後の試行',
    pending: '配信待ち',
    delivered: '配信済み',
    failed: '失敗',
    nextAttempt: '次の試行',
    redeliver: '再配信',
    redelivered: '配信を同じ webhook-id で再びキューに入れました。数秒以内に送信されます。',
    showDeliveries: '表示',
    allDeliveries: 'すべての配信',
    failedDeliveries: '失敗した配信のみ',
    olderDeliveries: 'さらに古い配信',
    newestDeliveries: '最新の配信',
    noFailedDeliveries: '失敗した配信はありません。',
    recover: '失敗した配信をまとめて再配信',
    recoverHint:
      '受信側が1日間の再送期間より長く止まっていたときに。選んだ期間に受信した電文の失敗した配信を、それぞれ同じ webhook-id と新たな1日間の再送期間で再びキューに入れます。古いものから順に、新しい緊急地震速報の後に送ります。',
    failedKept: '保存されている失敗した配信: %s件（最も古いものは %s に受信した電文）。',
    recoverPeriod: '対象とする電文の受信時刻',
    'period-1h': '直近1時間',
    'period-6h': '直近6時間',
    'period-24h': '直近24時間',
    'period-3d': '直近3日間',
    'period-7d': '直近7日間',
    'period-all': '直近30日間（保存されているすべて）',
    recovered:
      '失敗した配信%s件を、それぞれ同じ webhook-id で再びキューに入れました。これから数分のうちに送信されます。',
    recoveredNone: 'その期間に受信した電文の失敗した配信はないため、何もキューに入れていません。',
    recoverMalformed:
      'フォームの形式が正しくないため、何もキューに入れていません。Webhookのページのフォームを使ってください。',
    delete: 'このWebhookを削除',
    deleteHint: 'キューにある配信は破棄され、このURLへはもう何も送られません。',
    deleteConfirm: 'Webhookを削除',
    deleteQuestion: 'このWebhookとその配信記録を削除しますか？元に戻せません。',
    cancel: 'キャンセル',
    deleted: 'Webhookを削除しました。',
    cap: `このアカウントのWebhookは上限の${MAX_SUBSCRIPTIONS_PER_ACCOUNT}個です。削除してから作成してください。`,
    sentAlready:
      'このフォームは送信済みで、Webhookは作成されています。署名シークレットはそのときに表示したもので、再び表示されることはありません。今回は何も作成していません。新しいシークレットが必要な場合は、そのWebhookを削除して作成し直してください。それでも2つ目を作成する場合は、このフォームを送信してください。',
    sentAlreadyLink: 'Webhookを開く',
    noWebhook: 'あなたのアカウントにそのようなWebhookはありません。',
    noDelivery:
      'このWebhookに再配信できるそのような配信はありません（テストイベントはもう一度テスト送信してください）。',
    disabledNoRedelivery:
      'このWebhookは無効になっているため配信されません。先にWebhookのページで再び有効にしてください。',
    disable: '無効にする',
    disableHint:
      'Webhookを一時停止します。再び有効にするまでURLへは何も送らず、その間に受信した電文も送りません。配信待ちの配信は失敗になり、再び有効にした後で再配信できます。',
    disabledNotice: 'Webhookを無効にしました。再び有効にするまでURLへは何も送りません。',
    disabledByOwner: 'あなたが無効にしました',
    enable: '再び有効にする',
    enableHint:
      'これから受信する電文を、同じシークレットで署名して配信します。無効だった間に受信した電文は送られません。失敗した配信は、有効にした後で下から1件ずつ、または期間を選んでまとめて再配信できます。先にテスト送信で受信側が応答することを確かめてください。',
    enabled: 'Webhookを再び有効にしました。これから受信する電文を配信します。',
    rotate: '署名シークレットを更新',
    rotateHint:
      '新しいシークレットを作成し、1度だけ表示します。受信側に設定してください。その間の配信にはそれぞれのシークレットによる署名が付き、受信側はどちらでも検証できます。',
    secretSince: '現在のシークレットの開始',
    previousUntil: '置き換えたシークレットも署名する期限',
    previousLegend: '現在のシークレットは',
    previousDay: '新しいシークレットと並んで1日間署名を続ける（その間に受信側を切り替える）',
    previousNone: 'すぐに使えなくする（漏れたおそれがある）',
    rotatedNotice: '署名シークレットを更新しました。新しいシークレットは下に、この1度だけ表示されます。',
    rotateMalformed:
      'フォームの形式が正しくないため、何も更新していません。Webhookのページのフォームを使ってください。',
    edit: '設定を変更',
    editTitle: 'Webhookの変更',
    save: '設定を保存',
    tokenKeep:
      'Misskeyのみ。空のままにすると保存済みのトークンを使い続けます。入力するとそのトークンに置き換えます。',
    headers: '追加のリクエストヘッダー（任意）',
    headersHint:
      '1行に「名前: 値」を1つ。すべての配信とテストに付けて送ります。キーを求める受信側のためのものです（例: ntfyの「Authorization: Bearer tk_…」）。値は暗号化して保存され、二度と表示されません。',
    headersKeep:
      '空のままにすると今のヘッダーを使い続けます（値は表示しません）。入力した行ですべて置き換えます。設定済み:',
    removeHeaders: '追加のリクエストヘッダーを削除する',
    noneSet: 'なし',
    headerNames: '追加のリクエストヘッダー',
    mention: 'メンション（任意）',
    mentionSetting: 'メンション',
    testWithMention: 'メンションを付けて送る（通知されます。付けなければテストで通知することはありません）:',
    mentionHint:
      'DiscordとSlackのみ。重大な電文の投稿の先頭に付けるメンションを1つ、そのサービスの書き方で入力します。Discord: <@&ロールID>、<@ユーザーID>、@here、@everyone。Slack: <!channel>、<!here>、<@ユーザーID>、<!subteam^グループID>。投稿のほかの部分が誰かに通知することはなく、テスト送信でも通知しません。',
    mentionOn: 'メンションする投稿',
    'mentionOn-urgent': '緊急地震速報（警報）、大津波警報',
    'mentionOn-high': 'それに加え、重大な電文すべて（津波警報、震度5弱以上、噴火速報など）',
    heldNoContract: '契約が終了しています。契約が再開すると再び配信します（チェックしている間は保持）',
    updated: '設定を保存しました。次の電文から新しい設定で送ります。シークレットは変わりません。',
    rotatedAlready:
      'このフォームは送信済みで、シークレットは更新されています。新しいシークレットはそのときに表示したもので、再び表示されることはありません。今回は何も更新していません。もう一度更新する場合は、Webhookのページのフォームを使ってください。',
  },
};
