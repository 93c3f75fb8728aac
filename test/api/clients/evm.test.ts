import { describeClientContracts } from './contracts.js';

describeClientContracts('evm');
