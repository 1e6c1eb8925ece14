export * from './users.ts';
export * from './playbooks.ts';
export * from './conversations.ts';
export * from './recordings.ts';
export * from './infra.ts';
export * from './platform.ts';
export * from './compliance.ts';
