// C functions for libcurl's variadic calls, which Swift cannot make: one shim per argument type.
// Used by Transport's pinned HTTPS client only.
#ifndef CCURLSHIMS_H
#define CCURLSHIMS_H

#include <curl/curl.h>

/// curl_easy_setopt is variadic (one shim per argument type); a long option (flags, timeouts).
CURLcode CCurlShims_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
/// curl_easy_setopt is variadic; a curl_off_t option (sizes).
CURLcode CCurlShims_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// curl_easy_setopt is variadic; a string or pointer option (libcurl copies strings; NULL resets).
CURLcode CCurlShims_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/// curl_easy_setopt is variadic; a curl_slist option (headers, resolve entries).
CURLcode CCurlShims_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// curl_easy_setopt is variadic; a write or header callback.
CURLcode CCurlShims_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value);
/// curl_easy_getinfo is variadic; a long result (response code, TLS verify result).
CURLcode CCurlShims_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
