# A program an agent might write: call tools as functions, keep the big
# results in variables, print only what matters.
from api.everything import echo, get_sum

print(echo(message="hello from Monty"))
total = 0
for a, b in [(1, 2), (3, 4), (5, 6)]:
    total += float(get_sum(a=a, b=b).split()[-1].rstrip("."))
print("sum of sums:", total)
weather = api.everything.get_structured_content(location="Chicago")
print("Chicago:", weather["conditions"], weather["temperature"])
