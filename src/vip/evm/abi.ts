import { parseAbi } from 'viem';

/** Human-readable ABI of VipScore (docs/vip-contracts.md §1.1); identical to contracts/VipScore.json's ABI. */
export const VIP_SCORE_ABI = parseAbi([
  'constructor(uint64 initStage_)',
  'function updateScores(uint64 stage, address[] addrs, uint64[] amounts)',
  'function updateScore(uint64 stage, address addr, uint64 amount)',
  'function increaseScore(uint64 stage, address addr, uint64 amount)',
  'function decreaseScore(uint64 stage, address addr, uint64 amount)',
  'function finalizeStage(uint64 stage)',
  'function addAllowList(address addr)',
  'function removeAllowList(address addr)',
  'function initStage() view returns (uint64)',
  'function stages(uint64) view returns (uint64 stage, uint64 totalScore, bool isFinalized)',
  'function scores(uint64, address) view returns (bool isIndexed, uint64 amount)',
  'function allowList(address) view returns (bool)',
  'function getScores(uint64 stage, uint64 offset, uint64 limit) view returns ((address addr, uint64 amount, uint64 index)[])',
  'error PermissionDenied(address deniedAddress)',
  'error ZeroStage()',
  'error AddrsAndAmountsLengthMistmatch()',
  'error StageNotFound(uint64 stage)',
  'error StageFinalized(uint64 stage)',
  'event CreateStage(uint64 stage)',
  'event FinalizeStage(uint64 stage)',
  'event UpdateScore(address indexed addr, uint64 indexed stage, uint64 score, uint64 totalScore)',
]);
