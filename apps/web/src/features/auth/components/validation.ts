import { LIMITS } from '@sales-agent/shared/limits';

/** Client-side checks with the exact texts of spec §5. */
export function validateEmail(email: string): string | null {
  return email.trim() ? null : 'Email is required';
}

export function validateNewPassword(password: string, confirmation: string): { password?: string; confirmation?: string } {
  const errors: { password?: string; confirmation?: string } = {};
  if (password.length < LIMITS.passwordMinLength) errors.password = 'Password must be at least 8 characters long';
  if (password !== confirmation) errors.confirmation = 'Passwords do not match';
  return errors;
}
