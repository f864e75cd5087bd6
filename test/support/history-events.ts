import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activity type of each local activity a history records (one `core_local_activity` marker each), in order. */
export function localActivityTypes(events: readonly HistoryEvent[] | null | undefined): string[] {
  return (events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data;
    return [(JSON.parse(Buffer.from(data!).toString('utf8')) as { activity_type: string }).activity_type];
  });
}
