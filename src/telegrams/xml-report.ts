import type { XmlElement } from '../conversion/xml-element.ts';
import type { XmlReport } from './record.ts';
import { XmlRejected } from './xml.ts';

/** Text of a text-only element, trimmed ('' when empty); undefined when absent or not text-only. */
function text(element: XmlElement | undefined): string | undefined {
  if (element === undefined || element.children.length > 0) return undefined;
  return element.text.trim();
}

function required(parent: XmlElement, path: string, name: string): string {
  const value = text(parent.child(name));
  if (value === undefined || value === '') throw new XmlRejected(`missing ${path}/${name}`);
  return value;
}

/** A member the Head must hold, which may be empty (''): JMA leaves some base times unstated. */
function present(parent: XmlElement, path: string, name: string): string {
  const value = text(parent.child(name));
  if (value === undefined) throw new XmlRejected(`missing ${path}/${name}`);
  return value;
}

const orNull = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);

/** Control and Head of a JMA XML report, in the list/WebSocket `xmlReport` shape (values verbatim). */
export function extractXmlReport(report: XmlElement): XmlReport {
  if (report.name !== 'Report') throw new XmlRejected('root element is not Report');
  const control = report.child('Control');
  const head = report.child('Head');
  if (control === undefined) throw new XmlRejected('missing Report/Control');
  if (head === undefined) throw new XmlRejected('missing Report/Head');
  const optional = (name: string) => orNull(text(head.child(name))) ?? undefined;
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
      // Empty in a report without a base time (VFVO52's JSON has `targetDateTime: null`).
      targetDateTime: present(head, 'Head', 'TargetDateTime'),
      targetDateTimeDubious: optional('TargetDTDubious'),
      targetDuration: optional('TargetDuration'),
      validDateTime: optional('ValidDateTime'),
      eventId: orNull(text(head.child('EventID'))),
      serial: orNull(text(head.child('Serial'))),
      infoType: required(head, 'Head', 'InfoType'),
      infoKind: required(head, 'Head', 'InfoKind'),
      infoKindVersion: required(head, 'Head', 'InfoKindVersion'),
      headline: orNull(text(head.at('Headline/Text'))),
    },
  };
  // Keep the documented key set only: absent optional members are left out, not undefined.
  for (const key of ['targetDateTimeDubious', 'targetDuration', 'validDateTime'] as const) {
    if (out.head[key] === undefined) delete out.head[key];
  }
  return out;
}
