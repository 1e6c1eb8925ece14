import { Alert, Button, Card, Group, Loader, NumberInput, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { PageTitle } from '../../../components/page-title.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { type PricingInputs, type PricingResult, pricingPromptsQuery, pricingQuery } from '../api/pricing.ts';
import { COST_ROWS, formatDollars, PRICING_PERIODS, scaleCost } from '../components/cost-periods.ts';

type Field = keyof PricingInputs;
type Values = Record<Field, number | string>;

/** Spec §2.8/§9 inputs and their defaults. */
const FIELDS: { key: Field; label: string; description: string; defaultValue: number }[] = [
  { key: 'systemPromptLength', label: 'System Prompt Length', description: 'Characters of the system prompt sent with every reply.', defaultValue: 1774 },
  { key: 'userPromptLength', label: 'User Prompt Length', description: 'Characters of history and instructions sent with every reply.', defaultValue: 4134 },
  { key: 'messagesLength', label: 'Messages Length', description: 'Characters of one agent message.', defaultValue: 288 },
  { key: 'messagesPerMinute', label: 'Total messages in a minute', description: 'Agent messages per minute of call.', defaultValue: 5 },
];

const DEFAULTS = Object.fromEntries(FIELDS.map((f) => [f.key, f.defaultValue])) as Values;

/** All four are required numbers (spec §5); returns the error per field. */
function validate(values: Values): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = {};
  for (const { key, label } of FIELDS) {
    const value = values[key];
    if (value === '' || value === null || value === undefined) errors[key] = `${label} is required`;
    else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) errors[key] = `${label} must be a number of 0 or more`;
  }
  return errors;
}

/** Spec §2.8 pricing calculator: four inputs, a prompt picker, and cost tables for four periods. */
export default function PricingPage() {
  const [values, setValues] = useState<Values>(DEFAULTS);
  const errors = validate(values);
  const valid = Object.keys(errors).length === 0;
  // Typing recalculates after a short pause; an invalid set of inputs is never sent.
  const [debounced] = useDebouncedValue(values, 250);
  const debouncedValid = Object.keys(validate(debounced)).length === 0;
  const pricing = useQuery({ ...pricingQuery(debounced as PricingInputs), enabled: valid && debouncedValid });

  return (
    <>
      <PageTitle>Pricing calculator</PageTitle>
      <Stack>
        <Card withBorder component="form" aria-label="Pricing inputs" onSubmit={(e) => e.preventDefault()} noValidate>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            {FIELDS.map((field) => (
              <NumberInput
                key={field.key}
                label={field.label}
                description={field.description}
                required
                min={0}
                value={values[field.key]}
                error={errors[field.key]}
                onChange={(value) => setValues((v) => ({ ...v, [field.key]: value }))}
              />
            ))}
          </SimpleGrid>
        </Card>
        <PromptPicker onApply={(field, length) => setValues((v) => ({ ...v, [field]: length }))} />
        {pricing.isError && (
          <Alert color="red" title="Could not calculate the costs">
            {errorMessage(pricing.error)}
          </Alert>
        )}
        {!valid && <Text c="dimmed">Fill in all four numbers to see the costs.</Text>}
        {pricing.isPending && valid && <Loader aria-label="Calculating" />}
        {pricing.data && (
          <SimpleGrid cols={{ base: 1, md: 2, xl: 4 }} style={{ opacity: valid ? 1 : 0.5 }}>
            {PRICING_PERIODS.map((period) => (
              <CostTable key={period.minutes} title={period.title} minutes={period.minutes} result={pricing.data} />
            ))}
          </SimpleGrid>
        )}
        <Text size="xs" c="dimmed">
          Usage is the sum of the first four rows; the recordings row is a monthly storage amount. Unit prices and
          formulas: docs/pricing.md.
        </Text>
      </Stack>
    </>
  );
}

function CostTable({ title, minutes, result }: { title: string; minutes: number; result: PricingResult }) {
  return (
    <Card withBorder padding="sm">
      <Title order={4} mb="xs" id={`period-${minutes}`}>
        {title}
      </Title>
      <Table aria-labelledby={`period-${minutes}`} verticalSpacing={4}>
        <Table.Tbody>
          {COST_ROWS.map((row) => (
            <Table.Tr key={row.key} fw={row.key === 'totalCosts' ? 700 : undefined}>
              <Table.Th scope="row" fw="inherit">
                {row.label}
              </Table.Th>
              <Table.Td ta="right" ff="monospace">
                {formatDollars(scaleCost(result[row.key], minutes))}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/** Spec §2.8: pick a conversation-type or phase prompt and copy its length into the system or user length. */
function PromptPicker({ onApply }: { onApply: (field: Field, length: number) => void }) {
  const prompts = useQuery(pricingPromptsQuery());
  const [selected, setSelected] = useState<string | null>(null);
  const items = prompts.data?.flatMap((g) => g.items) ?? [];
  const chosen = items.find((i) => i.value === selected);

  return (
    <Card withBorder aria-label="Prompt picker">
      <Group align="flex-end" wrap="wrap">
        <Select
          label="Conversation type prompt"
          placeholder={prompts.isPending ? 'Loading prompts…' : items.length ? 'Pick a prompt' : 'No prompts yet'}
          data={(prompts.data ?? []).map((g) => ({ group: g.group, items: g.items.map(({ value, label }) => ({ value, label })) }))}
          value={selected}
          onChange={setSelected}
          searchable
          clearable
          style={{ flex: 1, minWidth: 280 }}
        />
        <Button variant="light" disabled={!chosen} onClick={() => chosen && onApply('systemPromptLength', chosen.length)}>
          Apply to System Prompt Length
        </Button>
        <Button variant="light" disabled={!chosen} onClick={() => chosen && onApply('userPromptLength', chosen.length)}>
          Apply to User Prompt Length
        </Button>
      </Group>
      {chosen && (
        <Text size="sm" mt="xs" c="dimmed">
          {`Selected prompt: ${chosen.length} characters`}
        </Text>
      )}
      {prompts.isError && (
        <Text size="sm" c="red" mt="xs">
          {errorMessage(prompts.error)}
        </Text>
      )}
    </Card>
  );
}
