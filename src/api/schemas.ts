import { Type, type TSchema } from 'typebox';

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

export const TelegramItemV2 = Type.Object({
  serial: Type.Integer(),
  id: Type.String({ description: 'SHA-384 hex of the delivered body' }),
  classification: Type.String(),
  head: Type.Object({
    type: Type.String(),
    author: Type.String(),
    target: Type.Optional(Type.String()),
    time: Type.String(),
    designation: Nullable(Type.String()),
    test: Type.Boolean(),
    xml: Type.Boolean(),
  }),
  receivedTime: Type.String(),
  xmlReport: Type.Optional(XmlReportSchema),
  schema: Type.Optional(Type.Object({ type: Type.String(), version: Type.String() })),
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
