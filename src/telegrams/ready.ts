import { convertToText, packConversion, type ConversionText, type PreparedConversion } from './conversion.ts';
import {
  identifyTelegram,
  readTelegram,
  type IngestHints,
  type PreparedTelegram,
  type ReadTelegram,
} from './prepare.ts';

/** A telegram ready to store, with its conversion already computed (CPU work done before any I/O). */
export type Ready =
  | { ok: true; telegram: PreparedTelegram; conversion: PreparedConversion | null }
  | { ok: false; reason: string };

/** A telegram read and converted, neither yet compressed nor identified (convertReceived). */
export type Converted =
  { ok: true; telegram: ReadTelegram; conversion: ConversionText | null } | { ok: false; reason: string };

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
 * Everything ingest computes before it touches the database (pure: no I/O): parse, classify, convert,
 * then compress and identify. Bulk ingest may split it: a prepare worker converts, and the storing
 * thread, while it has time to spare, compresses (docs/telegrams.md, "Bulk ingest").
 */
export function prepareForIngest(raw: Buffer, hints: IngestHints): Ready {
  return readyToStore(convertReceived(raw, hints));
}
