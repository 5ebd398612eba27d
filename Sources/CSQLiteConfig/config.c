#include <sqlite3.h>
#include "CSQLiteConfig.h"

int tender_sqlite3_get_pcache2(void *methods) {
    return sqlite3_config(SQLITE_CONFIG_GETPCACHE2, (sqlite3_pcache_methods2 *)methods);
}

int tender_sqlite3_set_pcache2(const void *methods) {
    return sqlite3_config(SQLITE_CONFIG_PCACHE2, (const sqlite3_pcache_methods2 *)methods);
}
