#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// `sqlite3_config` is variadic, which Swift cannot call: the two page-cache options it takes,
/// as plain functions. Each returns SQLite's result code (SQLITE_MISUSE once SQLite has been
/// initialized). The arguments are `sqlite3_pcache_methods2 *`, left untyped here so this
/// header does not declare SQLite's types a second time beside the GRDBSQLite module's.
int tender_sqlite3_get_pcache2(void *methods);
int tender_sqlite3_set_pcache2(const void *methods);

#endif
