-- Each live token's API object (spec/api.md §5.7), rendered by the database when the row is written
-- instead of by the API on every read (DESIGN §2: reads splice stored JSON). A token page then
-- reads three text-like columns per token instead of nine, and neither side formats anything:
-- on a 100-token page that was about a quarter of the API's CPU and most of the database's.
--
-- The object is  nft_collection.token_json_head || nft.json_head || <owner> || nft.json_tail.
-- The owner is left out: its bech32 text depends on the API's account prefix, not on the data.
-- Generated columns keep the text exact through every write (transfer, URI change, origin name)
-- and fill existing rows when this migration runs.

-- JSON string literal of a text, as JSON.stringify writes it for valid UTF-8 (to_json escapes
-- '"', '\' and control characters, nothing else). IMMUTABLE: to_json of text reads no setting.
CREATE FUNCTION ri_json_string(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT to_json(value)::text $$;

-- Go's RFC3339Nano of a microsecond time in UTC: the fraction without trailing zeros, 'Z'.
-- IMMUTABLE: the zone is fixed and the pattern has no locale-dependent fields.
CREATE FUNCTION ri_rfc3339_utc(ts timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
    SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || rtrim(to_char(ts AT TIME ZONE 'UTC', '.US'), '.0') || 'Z'
  $$;

-- A token object's start, through "object_addr":. The API reader calls it too, with empty names,
-- for a token whose collection row is missing (the reference would answer 500).
CREATE FUNCTION ri_nft_token_json_head(collection_addr bytea, name text, origin_name text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
    SELECT '{"collection_addr":"0x' || encode(collection_addr, 'hex') || '","collection_name":'
        || ri_json_string(name) || ',"collection_origin_name":' || ri_json_string(origin_name)
        || ',"object_addr":'
  $$;

ALTER TABLE nft_collection ADD COLUMN token_json_head text GENERATED ALWAYS AS (
  ri_nft_token_json_head(addr, name, origin_name)
) STORED;
COMMENT ON COLUMN nft_collection.token_json_head IS
  'Start of each of its tokens'' API object, through "object_addr": (the token''s nft.json_head follows).';

ALTER TABLE nft ADD COLUMN json_head text GENERATED ALWAYS AS (
  COALESCE('"0x' || encode(object_addr, 'hex') || '"', '""') || ',"owner":"'
) STORED;
COMMENT ON COLUMN nft.json_head IS
  'The token''s API object from its object_addr value through "owner":" (the owner''s bech32 text follows).';

ALTER TABLE nft ADD COLUMN json_tail text GENERATED ALWAYS AS (
  '","nft":{"token_id":' || ri_json_string(token_id) || ',"uri":' || ri_json_string(uri)
    || '},"height":' || height::text || ',"timestamp":"' || ri_rfc3339_utc("timestamp") || '"}'
) STORED;
COMMENT ON COLUMN nft.json_tail IS
  'The token''s API object after the owner''s bech32 text: nft, height, timestamp, closing brace.';
