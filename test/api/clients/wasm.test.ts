import { describeClientContracts } from './contracts.js';

describeClientContracts('wasm');
