import type { XmlReport } from './record.ts';
import { decodeText, XmlRejected, type XmlNode } from './xml.ts';

type Element = { [name: string]: XmlNode | XmlNode[] };

function child(node: XmlNode | XmlNode[] | undefined, name: string): XmlNode | XmlNode[] | undefined {
  const one = Array.isArray(node) ? node[0] : node;
  return one !== undefined && typeof one === 'object' ? (one as Element)[name] : undefined;
}

/** Text of a text-only element ('' when empty); undefined when absent or not text-only. */
function text(node: XmlNode | XmlNode[] | undefined): string | undefined {
  const one = Array.isArray(node) ? node[0] : node;
  if (one === undefined) return undefined;
  if (typeof one === 'string') return decodeText(one);
  return Object.keys(one).length === 0 ? '' : undefined;
}

function required(parent: XmlNode | XmlNode[] | undefined, path: string, name: string): string {
  const value = text(child(parent, name));
  if (value === undefined || value === '') throw new XmlRejected(`missing ${path}/${name}`);
  return value;
}

const orNull = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);

/** Control and Head of a JMA XML report, in the list/WebSocket `xmlReport` shape (values verbatim). */
export function extractXmlReport(doc: Record<string, XmlNode>): XmlReport {
  const report = doc['Report'];
  if (report === undefined || typeof report !== 'object') throw new XmlRejected('root element is not Report');
  const control = child(report, 'Control');
  const head = child(report, 'Head');
  if (control === undefined) throw new XmlRejected('missing Report/Control');
  if (head === undefined) throw new XmlRejected('missing Report/Head');
  const optional = (name: string) => orNull(text(child(head, name))) ?? undefined;
  const out: XmlReport = {
    control: {
      title: required(control, 'Control', 'Title'),
      dateTime: required(control, 'Control', 'DateTime'),
      status: required(control, 'Control', 'Status'),
      editorialOffice: required(control, 'Control', 'EditorialOffice'),
      publishingOffice: required(control, 'Control', 'PublishingOffice'),
    },
    head: {
      title: required(head, 'Head', 'Title'),
      reportDateTime: required(head, 'Head', 'ReportDateTime'),
      targetDateTime: required(head, 'Head', 'TargetDateTime'),
      targetDateTimeDubious: optional('TargetDTDubious'),
      targetDuration: optional('TargetDuration'),
      validDateTime: optional('ValidDateTime'),
      eventId: orNull(text(child(head, 'EventID'))),
      serial: orNull(text(child(head, 'Serial'))),
      infoType: required(head, 'Head', 'InfoType'),
      infoKind: required(head, 'Head', 'InfoKind'),
      infoKindVersion: required(head, 'Head', 'InfoKindVersion'),
      headline: orNull(text(child(child(head, 'Headline'), 'Text'))),
    },
  };
  // Keep the documented key set only: absent optional members are left out, not undefined.
  for (const key of ['targetDateTimeDubious', 'targetDuration', 'validDateTime'] as const) {
    if (out.head[key] === undefined) delete out.head[key];
  }
  return out;
}
