// TEMP placeholder of the lead (helper A replaces this file).
import { ChannelSendError, type ChannelSender, type ChannelType } from '../types.ts';
export function senderFor(_type: ChannelType): ChannelSender {
  return {
    limit: { unit: 'chars', max: 1000 },
    async send() {
      throw new ChannelSendError({ message: 'placeholder', type: 'network', code: null, status: null, method: null, url: null, response: null, details: null }, true);
    },
  };
}
