/**
 * Names shared by the statement that queues an outbox row (conversations/conversation-store.ts) and the job that
 * delivers it (channels/deliver.job.ts); kept apart so the agent does not import the senders.
 */
export const DELIVER_JOB = 'channels.deliver';
export const DELIVER_JOB_KEY_PREFIX = 'deliver:';
export const deliverJobKey = (outboxId: number) => `${DELIVER_JOB_KEY_PREFIX}${outboxId}`;
