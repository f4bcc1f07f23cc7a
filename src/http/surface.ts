import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { AppContext } from '../context.ts';

/** The Fastify app of one process, with the TypeBox type provider: route schemas type requests. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A surface adds its routes (and hooks) to the app. */
export type Surface = (app: App, ctx: AppContext) => Promise<void> | void;
