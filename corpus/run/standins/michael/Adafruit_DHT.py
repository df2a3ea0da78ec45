# Stand-in for the Adafruit_DHT sensor library (it needs a Raspberry Pi's GPIO): a DHT11 that always
# reads 40 % humidity and 21.5 degrees, as read_retry's (humidity, temperature) tuple.
DHT11 = 11
def read_retry(sensor, pin, *args, **kwargs):
    return (40.0, 21.5)
