import { describe, expect, it } from 'vitest';
import { validationErrorWords, validationWords } from '@sales-agent/shared/validation-words';

describe('validationWords (issue 24: validation errors in words)', () => {
  it("turns zod's generic messages into sentences naming the field", () => {
    expect(validationWords([{ field: 'page', message: 'Too small: expected number to be >=1' }])).toBe('Page must be at least 1.');
    expect(validationWords([{ field: 'limit', message: 'Too big: expected number to be <=100' }])).toBe('Limit must be at most 100.');
    expect(validationWords([{ field: 'state', message: 'Invalid option: expected one of "open"|"resolved"' }])).toBe('State must be one of open, resolved.');
    expect(validationWords([{ field: 'phaseCount', message: 'Invalid input: expected number, received NaN' }])).toBe('Phase count must be a number.');
    expect(validationWords([{ field: 'email', message: 'Invalid input: expected string, received undefined' }])).toBe('Email is required.');
    expect(validationWords([{ field: 'name', message: 'Too small: expected string to have >=1 characters' }])).toBe('Name must have at least 1 character.');
  });

  it("keeps the schema's own sentences", () => {
    expect(validationWords([{ field: 'text', message: 'Note must not be empty' }])).toBe('Note must not be empty.');
    expect(validationWords([{ field: 'conversationTypeId', message: 'no such id' }])).toBe('Conversation type id: no such id.');
  });

  it('reads the server\'s "Invalid request (querystring): …" answer into words', () => {
    const words = validationErrorWords('Invalid request (querystring): page: Too small: expected number to be >=1; to: Invalid ISO datetime');
    expect(words).toBe('Page must be at least 1. To is not valid.');
    expect(validationErrorWords('Invalid request: message: must not contain the NUL character')).toBe('Message must not contain the NUL character.');
    expect(validationErrorWords('This conversation has ended.')).toBe('This conversation has ended.');
  });
});
