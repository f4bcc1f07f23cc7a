import { Type, type TSchema } from 'typebox';
import { AREA_CODE_PATTERN, MAX_AREAS, placeFilterMessages } from '../telegrams/place-filters.ts';
import { INTENSITIES } from '../telegrams/facts.ts';
import { TELEGRAM_ID_PATTERN, resumeMessages } from '../telegrams/resume-point.ts';
import { classifications } from '../classifications.ts';

/**
 * Response schemas of the data API: they document the routes in the OpenAPI document and let
 * Fastify serialise responses fast. Keep them exactly in step with docs/data-api.md and docs/api-contract.md.
 */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const envelope = {
  responseId: Type.String({ description: 'Processing id (16 hex characters)' }),
  responseTime: Type.String({ description: 'Processing time, ISO 8601 UTC' }),
  status: Type.Literal('ok'),
};

export const ErrorResponse = Type.Object(
  {
    responseId: Type.String(),
    responseTime: Type.String(),
    status: Type.Literal('error'),
    error: Type.Object({ message: Type.String(), code: Type.Integer() }),
  },
  { description: 'Error envelope (docs/api-contract.md "Envelope")' },
);

export const XmlReportSchema = Type.Object(
  {
    control: Type.Object({
      title: Type.String(),
      dateTime: Type.String(),
      status: Type.String(),
      editorialOffice: Type.String(),
      publishingOffice: Type.String(),
    }),
    head: Type.Object({
      title: Type.String(),
      reportDateTime: Type.String(),
      targetDateTime: Type.String(),
      targetDateTimeDubious: Type.Optional(Type.String()),
      targetDuration: Type.Optional(Type.String()),
      validDateTime: Type.Optional(Type.String()),
      eventId: Nullable(Type.String()),
      serial: Nullable(Type.String()),
      infoType: Type.String(),
      infoKind: Type.String(),
      infoKindVersion: Type.String(),
      headline: Nullable(Type.String()),
    }),
  },
  { description: 'Control and Head of the XML telegram' },
);

/** The members of a telegram's `head` that every telegram has (XML and its JSON conversion). */
const headMembers = {
  type: Type.String(),
  author: Type.String(),
  target: Type.Optional(Type.String()),
  time: Type.String(),
  designation: Nullable(Type.String()),
  test: Type.Boolean(),
};

/** The schema a JSON conversion follows. */
const SchemaRefSchema = Type.Object({ type: Type.String(), version: Type.String() });

export const TelegramItemV2 = Type.Object({
  serial: Type.Integer(),
  id: Type.String({ description: 'SHA-384 hex of the delivered body' }),
  classification: Type.String(),
  head: Type.Object({
    ...headMembers,
    xml: Type.Optional(
      Type.Boolean({ description: 'Whether the telegram is XML; absent on JSON conversions' }),
    ),
  }),
  receivedTime: Type.String(),
  xmlReport: Type.Optional(XmlReportSchema),
  schema: Type.Optional(SchemaRefSchema),
  format: Type.String({ description: 'xml, a/n, binary or json' }),
  url: Type.String({ description: 'Body URL under {data_url}' }),
});

export const TelegramListV2 = Type.Object({
  ...envelope,
  items: Type.Array(TelegramItemV2),
  nextToken: Type.Optional(Type.String({ description: 'Cursor of the next, older page' })),
  nextPooling: Type.String({ description: 'Cursor for polling newer telegrams' }),
  nextPoolingInterval: Type.Integer({ description: 'Minimum wait before polling again, ms' }),
});

export const TelegramItemV1 = Type.Object({
  classification: Type.String(),
  key: Type.String({ description: 'SHA-384 hex of the delivered body' }),
  data: Type.Object({
    type: Type.String(),
    author: Type.String(),
    time: Type.String(),
    test: Type.Boolean(),
    xml: Type.Boolean(),
    createTime: Type.String(),
    sendNumber: Type.Integer(),
  }),
  url: Type.String(),
  xmlData: Type.Optional(XmlReportSchema),
});

export const TelegramListV1 = Type.Object({
  ...envelope,
  items: Type.Array(TelegramItemV1),
  newCatch: Type.Integer({ description: 'Pass back to get only newer telegrams' }),
  nextToken: Type.Optional(Type.String()),
});

export const ContractItem = Type.Object({
  id: Nullable(Type.Integer()),
  planId: Type.Integer(),
  planName: Type.String(),
  classification: Type.String(),
  classifications: Type.String({ description: 'Same value as classification' }),
  price: Type.Object({ day: Type.Integer(), month: Type.Integer() }),
  start: Nullable(Type.String()),
  isValid: Type.Boolean(),
  connectionCounts: Type.Integer(),
});

export const ContractList = Type.Object({ ...envelope, items: Type.Array(ContractItem) });

export const IngestResult = Type.Object({
  ...envelope,
  serial: Type.Integer(),
  id: Type.String(),
  classification: Type.String(),
  duplicate: Type.Boolean(),
});

/** Standard error responses of an authenticated data API route. */
export const errorResponses = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
};

/*
 * Request schemas: what each parameter may hold. A failure is answered with the message
 * docs/api-contract.md "Errors" gives (``Unexpected data of search query `<name>`.``) unless the route's
 * messages below name another for that field (docs/api-contract.md "Errors"). Query values stay strings, checked by
 * pattern: the service reads `limit=010` as 10 but refuses `1e1` and ` 10`.
 */

const FORMAT_MODE_MESSAGE = 'You have entered a string that is not defined in `formatMode`.';

/** The list's fields with a message of their own (docs/api-contract.md "Errors"). */
export const telegramListV2Messages = { formatMode: FORMAT_MODE_MESSAGE } as const;

/** The body's fields with a message of their own (docs/api-contract.md "Errors"). */
export const socketStartMessages = {
  classifications: 'At least one element of `classifications` is required.',
  types: 'The `types` is not a string or has more than 30 elements.',
  appName: 'The `appName` is up to 24 bytes.',
  formatMode: FORMAT_MODE_MESSAGE,
  formats: 'The `formats` must be an array and contain at least one element.',
  test: 'The `test` is `no` or `including`.',
  ...placeFilterMessages,
  after: resumeMessages.malformed('after'),
} as const;

/** A JMA data type code (VXSE53, VXKOii…). */
const TYPE_CODE = '[A-Za-z0-9]{1,6}';
/** Most exact codes one `type` filter may list (docs/api-contract.md "Errors"). */
export const MAX_EXACT_TYPES = 5;
/** `limit` of the telegram lists: 1–100, up to four digits. */
const telegramLimit = (description: string) =>
  Type.String({ pattern: '^0{0,3}([1-9]|[1-9][0-9]|100)$', maxLength: 4, description });
const apiKey = Type.String({ description: 'API key (alternative to the Authorization header)' });
/** One code: prefix match; several, comma-separated: exact. */
const typeFilter = Type.String({
  pattern: `^(${TYPE_CODE}(,${TYPE_CODE}){0,${MAX_EXACT_TYPES - 1}})?$`,
  description: 'One code: prefix match; several, comma-separated: exact (≤ 5)',
});
/** The official SDK's form of an exact list: repeated `type[]` (each may hold several codes). */
const typeList = Type.Array(Type.String({ pattern: `^${TYPE_CODE}(,${TYPE_CODE})*$` }), {
  description: 'Exact codes, repeated or comma-separated (≤ 5 in all); not with `type`',
});

/** A classification name, as the pattern of a query value. */
const CLASSIFICATION = `(${classifications.map((c) => c.replace('.', '\\.')).join('|')})`;

export const TelegramListV2Query = Type.Object(
  {
    classification: Type.Optional(
      Type.String({
        pattern: `^(${CLASSIFICATION}(,${CLASSIFICATION})*)?$`,
        maxLength: 256,
        description:
          'Only these classifications (comma-separated) of those the account has contracted; early warnings are never listed',
      }),
    ),
    formatMode: Type.Optional(
      Type.Union([Type.Literal('raw'), Type.Literal('json')], { description: '`raw` (default) or `json`' }),
    ),
    type: Type.Optional(typeFilter),
    'type[]': Type.Optional(typeList),
    xmlReport: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: '`true` adds Control/Head of XML telegrams (default false)',
      }),
    ),
    test: Type.Optional(
      Type.Union([Type.Literal('no'), Type.Literal('including'), Type.Literal('only')], {
        description: '`no` (default), `including` or `only`',
      }),
    ),
    datetime: Type.Optional(
      Type.String({
        description: 'Reception time range `start~end` (YYYY-MM-DDThh:mm:ss, Japan time), end exclusive',
      }),
    ),
    limit: Type.Optional(telegramLimit('Items per page, 1–100 (default 20)')),
    cursorToken: Type.Optional(
      Type.String({ description: 'A nextToken (older page) or nextPooling (newer) value' }),
    ),
    key: Type.Optional(apiKey),
  },
  { additionalProperties: true },
);

export const TelegramListV1Query = Type.Object(
  {
    key: Type.Optional(Type.String({ description: 'API key' })),
    type: Type.Optional(typeFilter),
    'type[]': Type.Optional(typeList),
    xml: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: '`true` adds xmlData to XML telegrams',
      }),
    ),
    test: Type.Optional(
      Type.Union([Type.Literal('false'), Type.Literal('true'), Type.Literal('only')], {
        description: '`false` (default), `true` (include) or `only`',
      }),
    ),
    limit: Type.Optional(telegramLimit('1–100 (default 100)')),
    newCatch: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,15}$', description: 'A newCatch value: only newer telegrams' }),
    ),
    nextToken: Type.Optional(Type.String({ description: 'A nextToken value: older telegrams' })),
  },
  { additionalProperties: true },
);

/** A session id: a positive integer (a JavaScript-safe one; the handler checks the magnitude). */
const SOCKET_ID = '^[1-9][0-9]{0,15}$';
export const SocketListQuery = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: SOCKET_ID, description: 'One session by id' })),
    status: Type.Optional(
      Type.Union([Type.Literal('waiting'), Type.Literal('open'), Type.Literal('closed')], {
        description: 'Sessions in this state only',
      }),
    ),
    limit: Type.Optional(telegramLimit('Items per page, 1–100 (default 20)')),
    cursorToken: Type.Optional(Type.String({ description: 'A nextToken value' })),
    key: Type.Optional(apiKey),
  },
  { additionalProperties: true },
);

/**
 * The filters by place and strength (docs/realtime.md "Filters by place and strength"), as a start
 * body holds them; the handler reads them with telegrams/place-filters.ts.
 */
export const placeFilterFields = {
  areas: Type.Optional(
    Nullable(
      Type.Array(Type.String({ pattern: AREA_CODE_PATTERN }), {
        maxItems: MAX_AREAS,
        description:
          'Prefecture codes (01–47, JIS X 0401) and JMA area codes: a telegram passes when it names one of them',
      }),
    ),
  ),
  minIntensity: Type.Optional(
    Nullable(
      Type.Union(
        INTENSITIES.map((i) => Type.Literal(i)),
        { description: 'Earthquake and early-warning telegrams below this intensity are dropped' },
      ),
    ),
  ),
};

/** The messages of `formats` beyond its shape (api/socket.ts checks its values). */
export const socketFormatsMessages = {
  incorrect: 'The `formats` are incorrect.',
  xmlAndJson: 'The `formats` cannot contain both xml and json.',
  withFormatMode: 'The `formats` cannot be used with `formatMode`.',
} as const;

/** A classification or type code as a socket filter holds it. */
const filterName = Type.String({ minLength: 1, maxLength: 64 });

/**
 * POST /v2/socket (docs/api-contract.md "WebSocket protocol"). `null` counts as absent. `appName`'s bound is
 * in bytes (UTF-8), which the handler checks; the schema bounds its characters.
 */
export const SocketStartBody = Type.Object(
  {
    // More classifications than exist are refused: the list is bounded like every input.
    classifications: Type.Array(filterName, { minItems: 1, maxItems: 32 }),
    types: Type.Optional(Nullable(Type.Array(filterName, { maxItems: 30 }))),
    test: Type.Optional(
      Nullable(
        Type.Union([Type.Literal('no'), Type.Literal('including')], {
          description: '`no` (default) or `including`',
        }),
      ),
    ),
    appName: Type.Optional(Nullable(Type.String({ maxLength: 24 }))),
    formatMode: Type.Optional(
      Nullable(
        Type.Union([Type.Literal('raw'), Type.Literal('json')], { description: '`raw` (default) or `json`' }),
      ),
    ),
    formats: Type.Optional(
      Nullable(
        Type.Array(Type.Unknown(), {
          minItems: 1,
          maxItems: 8,
          description:
            "The production service's alternative to `formatMode`: `xml`, `json`, `a/n`, `binary`; a list with `json` starts a `json` session, any other a `raw` one (the answer's `formats` says what is delivered)",
        }),
      ),
    ),
    ...placeFilterFields,
    after: Type.Optional(
      Nullable(
        Type.String({
          pattern: TELEGRAM_ID_PATTERN,
          description:
            'Resume: the id of the telegram last handled (a `data` message or a list item); the connection first receives every telegram after it (docs/realtime.md "Resume")',
        }),
      ),
    ),
  },
  { additionalProperties: true },
);

export const MAX_APP_NAME_BYTES = 24;

/** `limit` of the merged earthquake and early-warning lists and of the webhook deliveries: 1–100 (default 20). */
export const pageLimit = telegramLimit('Items per page, 1–100 (default 20)');

export const GdEarthquakeListQuery = Type.Object(
  {
    hypocenter: Type.Optional(
      Type.String({ pattern: '^[0-9]{3}$', description: '3-digit epicentre area code' }),
    ),
    maxInt: Type.Optional(
      Type.String({
        // `+` sent unencoded arrives as a space.
        pattern: '^(1|2|3|4|5-|5\\+|5 |6-|6\\+|6 |7)$',
        description: 'Lower bound of the maximum intensity: 1 < 2 < 3 < 4 < 5- < 5+ < 6- < 6+ < 7',
      }),
    ),
    date: Type.Optional(
      Type.String({
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ].{0,40})?$',
        description: 'yyyy-MM-dd: the Japan date of the detection time (a time part is ignored)',
      }),
    ),
    limit: Type.Optional(pageLimit),
    cursorToken: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'A nextToken (older) or nextPooling (new or changed) value',
      }),
    ),
    key: Type.Optional(apiKey),
  },
  { additionalProperties: true },
);

export const GdEewListQuery = Type.Object(
  {
    datetime: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Reception time range of the final report `start~end` (Japan time), end exclusive',
      }),
    ),
    limit: Type.Optional(pageLimit),
    cursorToken: Type.Optional(Type.String({ maxLength: 100, description: 'A nextToken value' })),
    key: Type.Optional(apiKey),
  },
  { additionalProperties: true },
);

export const GdEventParams = Type.Object({ eventId: Type.String({ description: 'JMA EventID' }) });

/** A JSON conversion as an item of an event's `telegrams` (docs/gd.md). */
const ConversionItem = Type.Object({
  serial: Type.Integer(),
  id: Type.String({ description: 'SHA-384 hex of the delivered (gzip) JSON body' }),
  originalId: Type.String({ description: 'id of the source XML telegram' }),
  classification: Type.String(),
  head: Type.Object(headMembers),
  receivedTime: Type.String(),
  xmlReport: XmlReportSchema,
  schema: SchemaRefSchema,
  format: Type.Literal('json'),
  url: Type.String({ description: 'Body URL under {data_url}' }),
});

/** Components of the conversion schemas, passed through as the documents hold them. */
const component = (description: string) => Type.Unknown({ description });

const EarthquakeEvent = {
  id: Type.Integer(),
  type: Type.Union([Type.Literal('normal'), Type.Literal('distant')]),
  eventId: Type.String(),
  originTime: Type.Optional(Type.String()),
  arrivalTime: Type.String(),
  hypocenter: Type.Optional(component('Hypocenter component')),
  magnitude: Type.Optional(component('Magnitude component')),
  maxInt: Nullable(Type.String()),
  maxLgInt: Type.Optional(Type.String()),
  lgCategory: Type.Optional(Type.String()),
};

export const GdEarthquakeList = Type.Object({
  ...envelope,
  items: Type.Array(Type.Object(EarthquakeEvent)),
  nextToken: Type.Optional(Type.String({ description: 'Cursor of the next, older page' })),
  nextPooling: Type.String({ description: 'Cursor for polling new or changed events' }),
  nextPoolingInterval: Type.Integer({ description: 'Minimum wait before polling again, ms' }),
});

export const GdEarthquakeEvent = Type.Object({
  ...envelope,
  event: Type.Object({ ...EarthquakeEvent, telegrams: Type.Array(ConversionItem) }),
});

const EewRecord = {
  id: Type.Integer({ description: "Serial of the report's JSON telegram" }),
  eventId: Type.String(),
  serial: Type.Integer(),
  dateTime: Type.String(),
  isLastInfo: Type.Boolean(),
  isCanceled: Type.Boolean(),
  isWarning: Type.Optional(Type.Boolean()),
  earthquake: Type.Optional(component('Predicted hypocentre: arrivalTime, hypocenter, magnitude')),
  intensity: Type.Optional(component('Predicted intensity with forecastMaxInt')),
  text: Type.Optional(Type.String()),
};

export const GdEewList = Type.Object({
  ...envelope,
  items: Type.Array(Type.Object(EewRecord)),
  nextToken: Type.Optional(Type.String({ description: 'Cursor of the next, older page' })),
});

export const GdEewEvent = Type.Object({
  ...envelope,
  items: Type.Array(Type.Object({ ...EewRecord, telegrams: Type.Array(ConversionItem) })),
});

const NamedCode = Type.Object({ code: Type.String(), name: Type.String(), kana: Type.String() });
const listHead = {
  ...envelope,
  changeTime: Type.String({ description: 'When JMA applied this list, ISO 8601 UTC' }),
  version: Type.String({ description: 'Version of the list: changes whenever its content does' }),
};

export const EarthquakeStationList = Type.Object({
  ...listHead,
  items: Type.Array(
    Type.Object({
      region: NamedCode,
      city: NamedCode,
      noCode: Type.String(),
      code: Type.String({ description: 'Station code as in XML (IntensityStation/Code)' }),
      name: Type.String(),
      kana: Type.String(),
      status: Type.Union([
        Type.Literal('現'),
        Type.Literal('変更'),
        Type.Literal('新規'),
        Type.Literal('廃止'),
      ]),
      owner: Type.String(),
      latitude: Type.String(),
      longitude: Type.String(),
    }),
  ),
});

export const TsunamiStationList = Type.Object({
  ...listHead,
  items: Type.Array(
    Type.Object({
      area: Nullable(Type.String()),
      prefecture: Nullable(Type.String()),
      code: Type.String(),
      name: Type.String(),
      kana: Type.String(),
      owner: Type.String(),
      latitude: Type.String({
        description: 'Empty: JMA publishes no positions of tsunami observation points',
      }),
      longitude: Type.String({
        description: 'Empty: JMA publishes no positions of tsunami observation points',
      }),
    }),
  ),
});
