import { Tabs } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { ConsentTable } from '../components/consent-table.tsx';
import { OptOutTable } from '../components/opt-out-table.tsx';

/**
 * Issue 23's audit for an ADMIN: the opt-outs (who asked not to be contacted) and the WhatsApp opt-ins
 * (consent changes, with their import), one tab each; `?tab=consents` opens the second.
 */
export default function OptOutAuditPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'consents' ? 'consents' : 'opt-outs';
  return (
    <>
      <PageTitle>Opt-outs and consents</PageTitle>
      <Tabs
        value={tab}
        onChange={(value) => setParams(value === 'consents' ? { tab: 'consents' } : {}, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="opt-outs">Opt-outs</Tabs.Tab>
          <Tabs.Tab value="consents">WhatsApp opt-ins</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="opt-outs">
          <OptOutTable />
        </Tabs.Panel>
        <Tabs.Panel value="consents">
          <ConsentTable />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
