// libcurl (OpenSSL flavour), for the HTTPS client with a pinned certificate.
#include <curl/curl.h>
