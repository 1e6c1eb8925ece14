/** A free slot or a booked meeting, as instants (ISO 8601 with offset) — shown in the prospect's time zone. */
export interface Slot {
  start: string;
  end: string;
}

export interface Attendee {
  name: string;
  email: string | null;
  timeZone: string;
}

export interface BookedMeeting extends Slot {
  externalId: string;
}

/** A calendar the agent can book into (booking.provider in the type's config). */
export interface CalendarProvider {
  readonly kind: 'ghl' | 'calcom' | 'demo';
  freeSlots(from: Date, to: Date, timeZone: string): Promise<Slot[]>;
  book(slot: Slot, attendee: Attendee): Promise<BookedMeeting>;
  /** Moves a booked meeting to another free slot; answers the meeting as it now stands (maybe a new id). */
  reschedule(externalId: string, slot: Slot, reason: string | null): Promise<BookedMeeting>;
  cancel(externalId: string, reason: string | null): Promise<void>;
}

/** A calendar refused or could not be reached; the message is for the model and the admin's tool-call line. */
export class CalendarError extends Error {
  override name = 'CalendarError';
}
