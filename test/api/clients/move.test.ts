import { describeClientContracts } from './contracts.js';

describeClientContracts('move');
