// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// VIP score contract for Initia MiniEVM rollups. Written for rollup-indexer; its external
// interface (selectors, events, errors, constructor, getScores padding) matches Initia's
// vip-score-evm byte for byte, because the VIP agent and the whitelist rely on that ABI.

error PermissionDenied(address deniedAddress);
error ZeroStage();
// The misspelling is part of the published ABI (selector 0x7105075e); do not correct it.
error AddrsAndAmountsLengthMistmatch();
error StageNotFound(uint64 stage);
error StageFinalized(uint64 stage);

event CreateStage(uint64 stage);
event FinalizeStage(uint64 stage);
event UpdateScore(address indexed addr, uint64 indexed stage, uint64 score, uint64 totalScore);

contract VipScore {
    struct StageInfo {
        uint64 stage;
        uint64 totalScore;
        bool isFinalized;
    }

    struct Score {
        bool isIndexed;
        uint64 amount;
    }

    struct ScoreResponse {
        address addr;
        uint64 amount;
        uint64 index;
    }

    // Storage order is fixed (slots 0..5) so raw-slot readers keep working.
    uint64 public initStage;
    mapping(uint64 => StageInfo) public stages;
    mapping(uint64 => mapping(address => Score)) public scores;
    mapping(uint64 => mapping(uint64 => address)) private scoreKeys;
    mapping(uint64 => uint64) private scoreLength;
    mapping(address => bool) public allowList;

    modifier onlyAllower() {
        if (!allowList[msg.sender]) revert PermissionDenied(msg.sender);
        _;
    }

    constructor(uint64 initStage_) {
        if (initStage_ == 0) revert ZeroStage();
        allowList[msg.sender] = true;
        initStage = initStage_;
        _createStage(initStage_);
    }

    function updateScores(uint64 stage, address[] calldata addrs, uint64[] calldata amounts)
        external
        onlyAllower
    {
        if (addrs.length != amounts.length) revert AddrsAndAmountsLengthMistmatch();
        for (uint256 i = 0; i < addrs.length; i++) {
            _setScore(stage, addrs[i], amounts[i]);
        }
    }

    function updateScore(uint64 stage, address addr, uint64 amount) external onlyAllower {
        _setScore(stage, addr, amount);
    }

    function increaseScore(uint64 stage, address addr, uint64 amount) external onlyAllower {
        if (addr == address(0)) return;
        _checkWritable(stage);
        Score storage s = _touch(stage, addr);
        s.amount += amount;
        stages[stage].totalScore += amount;
        emit UpdateScore(addr, stage, s.amount, stages[stage].totalScore);
    }

    function decreaseScore(uint64 stage, address addr, uint64 amount) external onlyAllower {
        if (addr == address(0)) return;
        _checkWritable(stage);
        Score storage s = _touch(stage, addr);
        s.amount -= amount;
        stages[stage].totalScore -= amount;
        emit UpdateScore(addr, stage, s.amount, stages[stage].totalScore);
    }

    function finalizeStage(uint64 stage) external onlyAllower {
        if (stages[stage].stage == 0) revert StageNotFound(stage);
        stages[stage].isFinalized = true;
        emit FinalizeStage(stage);
        uint64 next = stage + 1;
        if (stages[next].stage == 0) _createStage(next);
    }

    function addAllowList(address addr) external onlyAllower {
        allowList[addr] = true;
    }

    function removeAllowList(address addr) external onlyAllower {
        delete allowList[addr];
    }

    /// Always `limit` rows; rows past the last indexed address stay zero (addr 0, index 0).
    function getScores(uint64 stage, uint64 offset, uint64 limit)
        external
        view
        returns (ScoreResponse[] memory response)
    {
        response = new ScoreResponse[](limit);
        for (uint64 i = 0; i < limit; i++) {
            uint64 index = offset + i + 1;
            address addr = scoreKeys[stage][index];
            if (addr == address(0)) break;
            response[i] = ScoreResponse({addr: addr, amount: scores[stage][addr].amount, index: index});
        }
    }

    function _setScore(uint64 stage, address addr, uint64 amount) private {
        if (addr == address(0)) return;
        _checkWritable(stage);
        Score storage s = _touch(stage, addr);
        // Same arithmetic as the reference: through int128, cast back without a check.
        int128 diff = int128(uint128(amount)) - int128(uint128(s.amount));
        uint64 total = uint64(uint128(int128(uint128(stages[stage].totalScore)) + diff));
        s.amount = amount;
        stages[stage].totalScore = total;
        emit UpdateScore(addr, stage, amount, total);
    }

    function _checkWritable(uint64 stage) private view {
        if (stages[stage].stage == 0) revert StageNotFound(stage);
        if (stages[stage].isFinalized) revert StageFinalized(stage);
    }

    function _touch(uint64 stage, address addr) private returns (Score storage s) {
        s = scores[stage][addr];
        if (!s.isIndexed) {
            uint64 index = scoreLength[stage] + 1;
            scoreLength[stage] = index;
            scoreKeys[stage][index] = addr;
            s.isIndexed = true;
        }
    }

    function _createStage(uint64 stage) private {
        stages[stage] = StageInfo({stage: stage, totalScore: 0, isFinalized: false});
        emit CreateStage(stage);
    }
}
