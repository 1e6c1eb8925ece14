import { Alert, Badge, Button, Card, Code, Group, Stack, Text, Textarea } from '@mantine/core';
import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import type { CustomToolConfig } from '@sales-agent/shared/schemas/custom-tools';
import { useState } from 'react';
import { type TestToolResult, useTestCustomTool } from '../api/conversation-types.ts';

/**
 * The saved config's custom HTTP tools (issue 22), each with a "Test tool" button that runs it once with sample
 * arguments exactly as the agent would (signed, same address rule) and shows what came back.
 */
export function CustomToolsPanel({ typeId, configText }: { typeId: number | string; configText: string }) {
  const tools = readConversationTypeConfig(configText).tools ?? [];
  if (tools.length === 0) return null;
  return (
    <Card withBorder data-testid="custom-tools">
      <Text fw={600} mb="xs">
        Custom tools (saved config)
      </Text>
      <Stack gap="md">
        {tools.map((tool) => (
          <ToolTester key={tool.name} typeId={typeId} tool={tool} />
        ))}
      </Stack>
    </Card>
  );
}

function sampleArguments(tool: CustomToolConfig): string {
  const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: string }>;
  const sample = Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, p.type === 'number' || p.type === 'integer' ? 0 : p.type === 'boolean' ? false : '']));
  return JSON.stringify(sample, null, 2);
}

function ToolTester({ typeId, tool }: { typeId: number | string; tool: CustomToolConfig }) {
  const [args, setArgs] = useState(() => sampleArguments(tool));
  const [problem, setProblem] = useState<string | null>(null);
  const [result, setResult] = useState<TestToolResult | null>(null);
  const test = useTestCustomTool();
  const run = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(args);
    } catch (err) {
      setProblem(`Sample arguments are not valid JSON: ${(err as Error).message}`);
      return;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setProblem('Sample arguments must be a JSON object.');
      return;
    }
    setProblem(null);
    test.mutate({ typeId, name: tool.name, args: parsed as Record<string, unknown> }, { onSuccess: setResult });
  };
  return (
    <Stack gap={6} data-testid={`tool-${tool.name}`}>
      <Group gap="xs">
        <Code>{tool.name}</Code>
        <Badge variant="light" size="sm">
          {tool.method}
        </Badge>
        <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
          {tool.url}
        </Text>
      </Group>
      <Text size="sm">{tool.description}</Text>
      <Textarea label={`Sample arguments for ${tool.name}`} value={args} onChange={(e) => setArgs(e.currentTarget.value)} autosize minRows={2} ff="monospace" />
      {problem && (
        <Text size="sm" c="red">
          {problem}
        </Text>
      )}
      <Group>
        <Button size="xs" variant="light" onClick={run} loading={test.isPending}>
          Test tool
        </Button>
      </Group>
      {result && (
        <Alert color={result.ok ? 'green' : 'red'} title={result.ok ? `Answered ${result.status} in ${result.durationMs} ms` : 'The tool failed'} data-testid="tool-test-result">
          <Code block>{result.result}</Code>
        </Alert>
      )}
    </Stack>
  );
}
