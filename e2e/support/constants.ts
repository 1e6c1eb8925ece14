export const E2E_ADMIN = { email: 'admin@example.com', password: 'admin-password' };
