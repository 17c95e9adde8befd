"""Sleep: the cold path. Jobs with cursors over what was remembered (claims, diary,
names, entity merge and split, decay), the diary, and the background worker."""
