-- Event attributes always carry "value" and events always carry "attributes" (spec/api.md
-- decision 8; the renderer writes them since this release). Rows written before have the
-- reference's omit-empty form, e.g. {"key":"memo","index":true} or {"type":"x"}, which explorers
-- reject (a whole page at a time). This rewrites only those rows, and in them only the top-level
-- "events" array: the text before it (tx body included) stays byte for byte.
--
-- Where the array starts: tx.data is the API's object with "events" as its last key, so the array
-- is what follows the LAST ',"events":['. An earlier one can only be a key inside the tx body
-- (e.g. in a Wasm message), and string content cannot hold the marker: its quotes are escaped.
--
-- What is completed inside the array: an attribute object that closes right after its key (and
-- "index":true), and an event object that closes right after its type. There, '"key":"' and
-- '"type":"' can only be those object keys (string content has \" where the text has "), and the
-- key's string is consumed escape by escape, so a value holding {"key":"x"} text is not touched.
--
-- Locks: a plain UPDATE takes ROW EXCLUSIVE on tx, which neither API reads (ACCESS SHARE) nor the
-- indexer's inserts (ROW EXCLUSIVE) wait for; no ALTER, no table rewrite. The WHERE keeps
-- untouched rows out, so only affected rows get new versions (no bloat, no row locks elsewhere);
-- nothing updates old tx rows, so the row locks held until commit block no one.
--
-- Legacy `logs` are not rewritten: they are non-empty only when raw_log is the pre-0.50 SDK's JSON
-- log array, and the rollups this indexer follows run SDK 0.50 (raw_log is "" or an error text).

UPDATE tx
   SET data = left(tx.data, s.cut)
           || regexp_replace(
                regexp_replace(
                  substr(tx.data, s.cut + 1),
                  '("key":"(?:[^"\\]|\\.)*"(?:,"index":true)?)\}', '\1,"value":""}', 'g'),
                '(\{"type":"(?:[^"\\]|\\.)*")\}', '\1,"attributes":[]}', 'g')
  FROM (
    -- cut: position of the '[' that opens the top-level events array (strpos on the reversed
    -- text finds the last marker). The first regex is only a cheap filter over the whole text.
    SELECT sequence, length(data) - strpos(reverse(data), '[:"stneve",') + 1 AS cut
      FROM tx
     WHERE data ~ '"key":"(?:[^"\\]|\\.)*"(?:,"index":true)?\}|\{"type":"(?:[^"\\]|\\.)*"\}'
       AND strpos(data, ',"events":[') > 0
  ) s
 WHERE tx.sequence = s.sequence
   AND substr(tx.data, s.cut + 1) ~ '"key":"(?:[^"\\]|\\.)*"(?:,"index":true)?\}|\{"type":"(?:[^"\\]|\\.)*"\}';
