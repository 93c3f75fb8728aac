-- Why a call frame failed, as the tracer said it (callTracer `error`, e.g. "execution reverted",
-- and the decoded `revertReason` when the revert data is an Error(string)); NULL for a frame that
-- succeeded. Kept beside the API's JSON, which keeps the reference's keys (spec/api.md §5.4).
ALTER TABLE evm_internal_tx ADD COLUMN error text;
ALTER TABLE evm_internal_tx ADD COLUMN revert_reason text;
