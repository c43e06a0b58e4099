-- The search text becomes gatehouse.FoldCase of the searched fields instead
-- of their lower case: the two differ only in these lower-case characters,
-- each of which FoldCase maps to the character at the same place in the
-- second string (fold_test.go checks the list against Go's tables).
UPDATE events
SET search = translate(search, 'µıſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι', 'μisισβθφπκρεвдосттъѣꙋṡι')
WHERE search <> translate(search, 'µıſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι', 'μisισβθφπκρεвдосттъѣꙋṡι');
