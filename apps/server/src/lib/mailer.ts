import nodemailer from 'nodemailer';
import type { AppConfig } from '../config/env.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Whether emails can be sent (SMTP_URL set); without it, an ADMIN hands out set-password links instead. */
export const mailConfigured = (config: AppConfig) => Boolean(config.SMTP_URL);

/** The sender: MAIL_FROM, else no-reply at the public host. */
export const mailFrom = (config: AppConfig) => config.MAIL_FROM ?? `Sales Agent <no-reply@${new URL(config.PUBLIC_URL).hostname}>`;

/**
 * Sends one plain-text email through SMTP_URL (nodemailer's SMTP transport: smtp:// with STARTTLS when the
 * server offers it, smtps:// for TLS from the start, credentials in the URL). Throws when SMTP_URL is unset or
 * the server refuses; callers log the failure without the URL (it holds the password).
 */
export async function sendMail(config: AppConfig, mail: Mail): Promise<void> {
  if (!config.SMTP_URL) throw new Error('SMTP_URL is not set');
  const transport = nodemailer.createTransport(config.SMTP_URL);
  try {
    await transport.sendMail({ from: mailFrom(config), to: mail.to, subject: mail.subject, text: mail.text });
  } finally {
    transport.close();
  }
}
