import { MultiSelect } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { collectionsQuery } from '../api/knowledge.ts';

/** Picks the knowledge collections a conversation type answers from (issue 21); ids as strings. */
export function KnowledgeCollectionsSelect(props: { value: string[]; onChange(value: string[]): void }) {
  const collections = useQuery(collectionsQuery());
  const options = (collections.data ?? []).map((c) => ({ value: String(c.id), label: c.name }));
  const missing = props.value.filter((id) => !options.some((o) => o.value === id)).map((id) => ({ value: id, label: `#${id}` }));
  return (
    <MultiSelect
      label="Knowledge collections"
      description="The agent answers from these collections' facts and documents (Admin → Knowledge base)."
      placeholder={collections.isPending ? 'Loading collections…' : collections.isError ? 'Collections could not be loaded' : 'None'}
      data={[...options, ...missing]}
      value={props.value}
      onChange={props.onChange}
      clearable
      searchable
    />
  );
}
