// Preparing a telegram: everything ingest computes before it touches the database, composed here
// from its steps, in the order they run:
//   read.ts      read and check the bytes received (parse, classify, head)
//   convert.ts   convert the XML to its JSON document and serialise it
//   identify.ts  compress the telegram and its conversion, and give each its id
// Every step is pure (no I/O). Ingest (ingest.ts) and the prepare workers (prepare-pool.ts) call the
// compositions below, never a step.
import { convertToText, type ConversionText } from './convert.ts';
import {
  identifyTelegram,
  packConversion,
  type PreparedConversion,
  type PreparedTelegram,
} from './identify.ts';
import { readTelegram, type IngestHints, type ReadTelegram } from './read.ts';
import { converterFor } from '../conversion/registry.ts';
import type { XmlElement } from '../conversion/xml-element.ts';

/** What goes into preparing and what comes out, for its callers (ingest, the store, the sources). */
export type { IngestHints, PreparedConversion, PreparedTelegram };

export type Prepared = { ok: true; telegram: PreparedTelegram } | { ok: false; reason: string };

/** A telegram ready to store, with its conversion already computed (CPU work done before any I/O). */
export type Ready =
  | { ok: true; telegram: PreparedTelegram; conversion: PreparedConversion | null }
  | { ok: false; reason: string };

/** A telegram read and converted, neither yet compressed nor identified (convertReceived). */
export type Converted =
  { ok: true; telegram: ReadTelegram; conversion: ConversionText | null } | { ok: false; reason: string };

/**
 * Everything ingest computes before it touches the database (pure: no I/O): parse, classify, convert,
 * then compress and identify. Bulk ingest may split it: a prepare worker converts, and the storing
 * thread, while it has time to spare, compresses (docs/telegrams.md, "Bulk ingest").
 */
export function prepareForIngest(raw: Buffer, hints: IngestHints): Ready {
  return readyToStore(convertReceived(raw, hints));
}

/**
 * Reads the telegram and converts it (pure: no I/O): the parse and the conversion, the larger part
 * of preparing. The conversion runs with the raw digest standing in for the XML's id.
 */
export function convertReceived(raw: Buffer, hints: IngestHints): Converted {
  const read = readTelegram(raw, hints);
  if (!read.ok) return read;
  const { telegram, xmlDocument } = read;
  const conversion =
    xmlDocument === undefined ? null : convertToText(telegram.head, xmlDocument, telegram.rawDigest);
  return { ok: true, telegram, conversion };
}

/** Compresses and identifies a converted telegram and its conversion (pure: no I/O). */
export function readyToStore(converted: Converted): Ready {
  if (!converted.ok) return converted;
  const telegram = identifyTelegram(converted.telegram);
  const { conversion } = converted;
  return { ok: true, telegram, conversion: conversion && packConversion(telegram, conversion) };
}

/**
 * A telegram to store without its conversion, for `reason` (pure: no I/O): of an XML telegram only
 * Control and Head are read (read.ts, `scope` "head"), so that the work is bounded whatever its Body
 * holds; a type with a converter gets a failed conversion with that reason, recorded as any other
 * (docs/telegrams.md, "Time budget").
 */
export function prepareUnconverted(raw: Buffer, hints: IngestHints, reason: string): Ready {
  const read = readTelegram(raw, hints, 'head');
  if (!read.ok) return read;
  const telegram = identifyTelegram(read.telegram);
  const converter = telegram.format === 'xml' ? converterFor(telegram.head.type) : undefined;
  return {
    ok: true,
    telegram,
    conversion: converter ? { ok: false, schema: converter.schema, reason } : null,
  };
}

/** Turns received bytes into a storable telegram without its conversion (pure: no I/O). */
export function prepareTelegram(raw: Buffer, hints: IngestHints): Prepared {
  const read = readTelegram(raw, hints);
  return read.ok ? { ok: true, telegram: identifyTelegram(read.telegram) } : read;
}

/** The JSON conversion of an XML telegram whose id is known, ready to store (rebuild.ts). */
export function prepareConversion(
  xml: PreparedTelegram,
  document: string | XmlElement,
): PreparedConversion | null {
  const text = convertToText(xml.head, document, xml.id);
  return text === null ? null : packConversion(xml, text);
}
